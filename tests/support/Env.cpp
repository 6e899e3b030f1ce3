//===- tests/support/Env.cpp ----------------------------------------------===//
#include "tests/support/Env.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;

namespace weft::test {

CommandResult run(StringRef Program, ArrayRef<std::string> Args, ArrayRef<std::string> Env,
                  unsigned TimeoutSeconds) {
  CommandResult R;
  std::string Path = Program.str();
  if (!Program.contains('/')) {
    ErrorOr<std::string> Found = sys::findProgramByName(Program);
    if (!Found) {
      R.Err = "program not found: " + Program.str();
      return R;
    }
    Path = *Found;
  }
  SmallString<128> OutFile, ErrFile;
  sys::fs::createTemporaryFile("weft-test-out", "txt", OutFile);
  sys::fs::createTemporaryFile("weft-test-err", "txt", ErrFile);
  std::vector<StringRef> Argv{Path};
  for (const std::string &A : Args)
    Argv.push_back(A);
  std::optional<std::vector<StringRef>> EnvRefs;
  std::vector<std::string> EnvStore;
  if (!Env.empty()) {
    // An entry given replaces the process's own of that name (getenv finds the first).
    for (char **E = environ; *E; ++E) {
      StringRef Name = StringRef(*E).split('=').first;
      if (llvm::none_of(Env, [&](const std::string &G) { return StringRef(G).split('=').first == Name; }))
        EnvStore.push_back(*E);
    }
    for (const std::string &E : Env)
      EnvStore.push_back(E);
    EnvRefs.emplace(EnvStore.begin(), EnvStore.end());
  }
  Optional<StringRef> Redirects[] = {StringRef(""), StringRef(OutFile), StringRef(ErrFile)};
  std::string ErrMsg;
  R.ExitCode =
      sys::ExecuteAndWait(Path, Argv, EnvRefs ? Optional<ArrayRef<StringRef>>(*EnvRefs) : None,
                          Redirects, TimeoutSeconds, 0, &ErrMsg);
  R.Out = readFile(OutFile);
  R.Err = readFile(ErrFile) + ErrMsg;
  sys::fs::remove(OutFile);
  sys::fs::remove(ErrFile);
  return R;
}

// Lines like "Microsoft.NETCore.App 10.0.12 [/usr/share/dotnet/shared/Microsoft.NETCore.App]".
static std::vector<Installed> parseListing(StringRef Text, bool HasName) {
  std::vector<Installed> Out;
  SmallVector<StringRef, 16> Lines;
  Text.split(Lines, '\n', -1, false);
  for (StringRef L : Lines) {
    L = L.trim();
    size_t Open = L.find('['), Close = L.rfind(']');
    if (Open == StringRef::npos || Close == StringRef::npos)
      continue;
    SmallVector<StringRef, 3> Words;
    L.substr(0, Open).trim().split(Words, ' ', -1, false);
    Installed I;
    if (HasName && Words.size() == 2) {
      I.Name = Words[0].str();
      I.Version = Words[1].str();
    } else if (!HasName && Words.size() == 1) {
      I.Version = Words[0].str();
    } else {
      continue;
    }
    SmallString<256> Dir(L.slice(Open + 1, Close));
    sys::path::append(Dir, I.Version);
    I.Dir = std::string(Dir);
    Out.push_back(I);
  }
  return Out;
}

std::vector<Installed> sharedFrameworks() {
  return parseListing(run("dotnet", {"--list-runtimes"}).Out, true);
}

std::vector<Installed> sdks() { return parseListing(run("dotnet", {"--list-sdks"}).Out, false); }

std::string frameworkFile(StringRef Name) {
  SmallString<256> P(netCoreAppDir());
  sys::path::append(P, Name);
  return std::string(P);
}

std::string netCoreAppDir() {
  std::string Best, BestVersion;
  for (const Installed &I : sharedFrameworks())
    if (I.Name == "Microsoft.NETCore.App")
      Best = I.Dir; // dotnet lists versions in ascending order
  return Best;
}

std::string nugetPackagesDir() {
  CommandResult R = run("dotnet", {"nuget", "locals", "global-packages", "--list"});
  StringRef Out = StringRef(R.Out).trim();
  size_t Colon = Out.find(": ");
  if (Colon == StringRef::npos)
    return {};
  return Out.substr(Colon + 2).trim().str();
}

#ifndef WEFT_SOURCE_DIR
#error "WEFT_SOURCE_DIR must be defined by the build"
#endif

std::string sourceDir() { return WEFT_SOURCE_DIR; }
std::string binaryDir() { return WEFT_BINARY_DIR; }
std::string externalCorpusDir() {
  std::string Dir = WEFT_EXTERNAL_CORPUS;
  if (Optional<std::string> Env = sys::Process::GetEnv("WEFT_EXTERNAL_CORPUS"))
    Dir = *Env;
  return sys::fs::is_directory(Dir) ? Dir : std::string();
}
std::string externalCorpusMissing() {
  std::string Dir = WEFT_EXTERNAL_CORPUS;
  if (Optional<std::string> Env = sys::Process::GetEnv("WEFT_EXTERNAL_CORPUS"))
    Dir = *Env;
  return "no external corpus at '" + Dir +
         "': set WEFT_EXTERNAL_CORPUS to a folder of Mono.Cecil's test assemblies (the "
         "Test/Resources/assemblies folder of a clone of https://github.com/jbevain/cecil)";
}
bool fullRun() {
  Optional<std::string> Full = sys::Process::GetEnv("WEFT_FULL");
  return Full && *Full == "1";
}

// The weft under test: the development build's, or the one WEFT_TEST_WEFT names (a platform
// build's: tests/CMakeLists.txt runs tests against them so).
std::string weftTool() {
  Optional<std::string> Other = sys::Process::GetEnv("WEFT_TEST_WEFT");
  return Other && !Other->empty() ? *Other : std::string(WEFT_TOOL);
}
std::string corpusDir() { return WEFT_CORPUS_DIR; }

std::string corpusDll(StringRef Name) {
  SmallString<256> P(corpusDir());
  sys::path::append(P, "bin", Name, "release", Name + ".dll");
  return std::string(P);
}

std::string expectedOutput(StringRef Name) {
  SmallString<256> P(sourceDir());
  sys::path::append(P, "corpus", Name, "expected.txt");
  return readFile(P);
}

static bool hasProject(StringRef Dir, StringRef Name, StringRef Extension) {
  SmallString<256> Proj(Dir);
  sys::path::append(Proj, Name + Extension);
  return sys::fs::exists(Proj);
}

std::vector<std::string> corpusPrograms(CorpusLanguage Language) {
  std::vector<std::string> Names;
  SmallString<256> Root(sourceDir());
  sys::path::append(Root, "corpus");
  std::error_code EC;
  for (sys::fs::directory_iterator It(Root, EC), End; It != End && !EC; It.increment(EC)) {
    StringRef Name = sys::path::filename(It->path());
    // A program prints what its expected.txt holds (WebApi, a server, has none).
    if (!sys::fs::exists(It->path() + "/expected.txt"))
      continue;
    bool CSharp = hasProject(It->path(), Name, ".csproj");
    bool FSharp = hasProject(It->path(), Name, ".fsproj");
    if ((CSharp && Language != CorpusLanguage::FSharp) ||
        (FSharp && Language != CorpusLanguage::CSharp))
      Names.push_back(Name.str());
  }
  std::sort(Names.begin(), Names.end());
  return Names;
}

bool isFSharpProgram(StringRef Name) {
  SmallString<256> Dir(sourceDir());
  sys::path::append(Dir, "corpus", Name);
  return hasProject(Dir, Name, ".fsproj");
}

bool copyCorpusCompanions(StringRef Name, StringRef Dir) {
  std::string Dll = corpusDll(Name);
  StringRef From = sys::path::parent_path(Dll);
  if (sys::fs::copy_file(From + "/" + Name + ".runtimeconfig.json",
                         Dir + "/" + Name + ".runtimeconfig.json"))
    return false;
  for (const std::string &F : filesUnder(From, {".dll"})) {
    if (F == Dll || sys::path::parent_path(F) != From)
      continue;
    if (sys::fs::copy_file(F, Dir + "/" + sys::path::filename(F)))
      return false;
  }
  return true;
}

std::vector<std::string> filesUnder(StringRef Dir, ArrayRef<StringRef> Extensions) {
  std::vector<std::string> Out;
  std::error_code EC;
  for (sys::fs::recursive_directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC)) {
    if (It->type() != sys::fs::file_type::regular_file &&
        It->type() != sys::fs::file_type::symlink_file)
      continue;
    StringRef P = It->path();
    for (StringRef Ext : Extensions)
      if (P.endswith_insensitive(Ext)) {
        Out.push_back(P.str());
        break;
      }
  }
  std::sort(Out.begin(), Out.end());
  return Out;
}

std::string readFile(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  return Buf ? (*Buf)->getBuffer().str() : std::string();
}

bool writeFile(StringRef Path, StringRef Text) {
  std::error_code EC;
  raw_fd_ostream OS(Path, EC);
  if (EC)
    return false;
  OS << Text;
  return true;
}

namespace {
int removeEntry(const char *Path, const struct stat *, int Type, struct FTW *) {
  return Type == FTW_DP ? ::rmdir(Path) : ::unlink(Path);
}
} // namespace

void removeTree(StringRef Dir) {
  // Not sys::fs::remove_directories: it leaves FIFOs, sockets and devices (and so the folder).
  ::nftw(Dir.str().c_str(), removeEntry, 16, FTW_DEPTH | FTW_PHYS);
}

std::string packagesDir() { return binaryDir() + "/package-test/packages"; }

std::vector<std::string> packageRestoreArgs(StringRef Version) {
  return {"-p:RestoreAdditionalProjectSources=" + binaryDir() + "/package-test/nupkg",
          "-p:RestorePackagesPath=" + packagesDir(), "-p:WeftVersion=" + Version.str()};
}

std::string scratchDir(StringRef Name) {
  SmallString<256> P(binaryDir());
  sys::path::append(P, "test-scratch", Name);
  removeTree(P);
  sys::fs::create_directories(P);
  return std::string(P);
}

} // namespace weft::test

#include "metadata/Module.h"
#include "pe/Image.h"

#include <map>
#include <mutex>

namespace weft::test {

const LoadedAssembly &frameworkAssembly(StringRef FileName) {
  static std::mutex Lock;
  static std::map<std::string, std::unique_ptr<LoadedAssembly>> Cache;
  std::lock_guard<std::mutex> G(Lock);
  std::unique_ptr<LoadedAssembly> &Slot = Cache[FileName.str()];
  if (!Slot) {
    Slot = std::make_unique<LoadedAssembly>();
    SmallString<256> P(netCoreAppDir());
    sys::path::append(P, FileName);
    Slot->Path = std::string(P);
    auto Img = pe::Image::open(P);
    if (!Img) {
      errs() << "cannot open " << P << ": " << toString(Img.takeError()) << '\n';
      std::abort();
    }
    Slot->Image = std::move(*Img);
    auto M = metadata::Module::create(Slot->Image->metadata(), Slot->Image->metadataOffset());
    if (!M) {
      errs() << "cannot read " << P << ": " << toString(M.takeError()) << '\n';
      std::abort();
    }
    Slot->Module = std::move(*M);
  }
  return *Slot;
}

} // namespace weft::test
