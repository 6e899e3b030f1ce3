//===- tests/support/Env.h - The machine the tests run on -------*- C++ -*-===//
//
// Finds the installed .NET pieces the way a user's machine has them: shared frameworks through
// `dotnet --list-runtimes`, SDKs through `dotnet --list-sdks`, the NuGet package folder through
// `dotnet nuget locals`. Runs commands and captures what they print.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_TESTS_SUPPORT_ENV_H
#define WEFT_TESTS_SUPPORT_ENV_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace llvm {
/// Lets GoogleTest print StringRef (and SmallString through str()) in failure messages.
inline std::ostream &operator<<(std::ostream &OS, StringRef S) {
  return OS.write(S.data(), std::streamsize(S.size()));
}
} // namespace llvm

namespace weft::test {

struct CommandResult {
  int ExitCode = -1;
  std::string Out, Err;
};

/// Runs \p Program (looked up on PATH if it has no '/') with \p Args; \p Env entries "K=V" are
/// added to the environment (in place of the process's own K). Captures standard output and
/// error.
CommandResult run(llvm::StringRef Program, llvm::ArrayRef<std::string> Args,
                  llvm::ArrayRef<std::string> Env = {}, unsigned TimeoutSeconds = 0);

/// An installed shared framework or SDK: its name ("Microsoft.NETCore.App"), version and folder.
struct Installed {
  std::string Name, Version, Dir;
};
std::vector<Installed> sharedFrameworks();
std::vector<Installed> sdks();
/// The folder of the newest installed Microsoft.NETCore.App.
std::string netCoreAppDir();
/// A file of the newest Microsoft.NETCore.App ("System.Linq.dll").
std::string frameworkFile(llvm::StringRef Name);
/// The NuGet global-packages folder.
std::string nugetPackagesDir();

/// Paths set by CMake for the tests (see tests/CMakeLists.txt).
std::string sourceDir(); // the repository
std::string binaryDir(); // the build tree
std::string weftTool();  // the weft executable
/// The Weft package (package/pack.sh, the package.pack step) as the tests restore it: from the
/// build tree's package-test/nupkg into the packages folder all the suite's samples share
/// (package-test/packages; package.pack removes its old copy of Weft), at version \p Version.
/// The properties for `dotnet build`/`test`, and that folder.
std::vector<std::string> packageRestoreArgs(llvm::StringRef Version);
std::string packagesDir();
/// The external corpus: assemblies other tools wrote (Mono.Cecil's test assemblies), in the folder
/// WEFT_EXTERNAL_CORPUS names, by default ../shared/corpus-external/cecil beside the repository
/// (CMake's WEFT_EXTERNAL_CORPUS, which the environment variable overrides when the tests run).
/// Empty when that folder is not there: the tests that need it then skip, saying
/// externalCorpusMissing().
std::string externalCorpusDir();
std::string externalCorpusMissing();
/// WEFT_FULL=1: the long campaigns whole (every program, file or pass case), not the suite's slice.
bool fullRun();
std::string corpusDir(); // where the corpus programs were built (artifacts layout)
std::string corpusDll(llvm::StringRef Name);
/// The languages of the corpus: a C# program's folder has a .csproj, an F# program's an .fsproj.
enum class CorpusLanguage { Any, CSharp, FSharp };
/// The names of the corpus programs (folders of corpus/ with a project), sorted.
std::vector<std::string> corpusPrograms(CorpusLanguage Language = CorpusLanguage::Any);
bool isFSharpProgram(llvm::StringRef Name);
/// Puts beside a rewritten copy of corpus program \p Name, in \p Dir, what it needs to run: its
/// runtime config and the other assemblies of its folder (FSharp.Core for an F# program). No
/// deps.json: the host then loads every assembly of the folder. False if a copy failed.
bool copyCorpusCompanions(llvm::StringRef Name, llvm::StringRef Dir);
/// What corpus program \p Name prints (corpus/<Name>/expected.txt).
std::string expectedOutput(llvm::StringRef Name);

/// Every file under \p Dir (recursively) whose name ends in one of \p Extensions.
std::vector<std::string> filesUnder(llvm::StringRef Dir,
                                    llvm::ArrayRef<llvm::StringRef> Extensions);

std::string readFile(llvm::StringRef Path);
bool writeFile(llvm::StringRef Path, llvm::StringRef Text);
/// Removes \p Dir and everything in it (FIFOs, sockets and devices too), following no link.
void removeTree(llvm::StringRef Dir);
/// A fresh empty directory under the build tree for one test.
std::string scratchDir(llvm::StringRef Name);

} // namespace weft::test

namespace weft::pe {
class Image;
}
namespace weft::metadata {
class Module;
}
namespace weft::test {

/// An assembly of the installed Microsoft.NETCore.App, opened once per process.
struct LoadedAssembly {
  std::string Path;
  std::unique_ptr<pe::Image> Image;
  std::unique_ptr<metadata::Module> Module;
};
const LoadedAssembly &frameworkAssembly(llvm::StringRef FileName);

} // namespace weft::test

#endif
