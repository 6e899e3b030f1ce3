//===- runtime-profiler/ProcessFilter.cpp - Which processes are instrumented ---===//
#include "runtime-profiler/ProcessFilter.h"
#include "support/Port.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace weft::prof {

namespace {

/// The host's options that take a value (`dotnet exec --runtimeconfig FILE app.dll`).
bool takesValue(StringRef Option) {
  return Option == "--runtimeconfig" || Option == "--depsfile" ||
         Option == "--additionalprobingpath" || Option == "--additional-deps" ||
         Option == "--fx-version" || Option == "--roll-forward" ||
         Option == "--roll-forward-on-no-candidate-fx";
}

/// Whether \p Path lies in a .NET installation's `sdk` folder (a folder `sdk` beside a
/// `shared/Microsoft.NETCore.App`): MSBuild, the compilers (an apphost, such as Roslyn's `csc`),
/// VSTest's console.
bool inSdk(StringRef Path) {
  for (StringRef Dir = sys::path::parent_path(Path); !Dir.empty();
       Dir = sys::path::parent_path(Dir)) {
    if (sys::path::filename(Dir) != "sdk")
      continue;
    SmallString<256> Runtime(sys::path::parent_path(Dir));
    sys::path::append(Runtime, "shared", "Microsoft.NETCore.App");
    if (sys::fs::is_directory(Runtime))
      return true;
  }
  return false;
}

bool isAssemblyName(StringRef Arg) {
  return Arg.endswith_insensitive(".dll") || Arg.endswith_insensitive(".exe");
}

} // namespace

ProcessIdentity ProcessIdentity::current() {
  ProcessIdentity P;
  P.Argv = port::commandLine();
  P.Executable = port::executablePath();
  // `dotnet app.dll ...` or `dotnet exec [host options] app.dll ...`: the first argument that
  // names an assembly, before any other that does not.
  StringRef Host = sys::path::filename(P.Executable);
  if (P.Argv.size() > 1 && (Host == "dotnet" || Host == "dotnet.exe")) {
    for (size_t I = 1; I < P.Argv.size(); ++I) {
      StringRef A = P.Argv[I];
      if (A == "exec" && I == 1)
        continue;
      if (takesValue(A)) {
        ++I;
        continue;
      }
      if (isAssemblyName(A)) {
        SmallString<256> Abs(A);
        sys::fs::make_absolute(Abs);
        P.MainAssembly = std::string(Abs);
      }
      break;
    }
  }
  return P;
}

std::string ProcessIdentity::commandLine() const { return join(Argv, " "); }

Expected<ProcessFilter> ProcessFilter::parse(StringRef Text) {
  ProcessFilter F;
  SmallVector<StringRef, 4> Parts;
  Text.split(Parts, ';', -1, /*KeepEmpty=*/false);
  for (StringRef P : Parts) {
    P = P.trim();
    if (P.empty())
      continue;
    if (Expected<GlobPattern> G = GlobPattern::create(P); !G)
      return createStringError(inconvertibleErrorCode(),
                               "WEFT_PROCESSES: '" + P + "': " + toString(G.takeError()));
    F.Patterns.push_back(P.str());
  }
  return F;
}

bool ProcessFilter::chooses(const ProcessIdentity &P, std::string &Why) const {
  StringRef Program = sys::path::filename(P.Executable);
  if (!Patterns.empty()) {
    std::string Line = P.commandLine();
    for (const std::string &Text : Patterns) {
      GlobPattern G = cantFail(GlobPattern::create(Text));
      if (G.match(Program) || G.match(sys::path::filename(P.MainAssembly)) || G.match(Line))
        return true;
    }
    Why = "it matches none of WEFT_PROCESSES (" + join(Patterns, ";") + ")";
    return false;
  }
  // The SDK's own processes: a command of the dotnet CLI (`dotnet test`), or a tool from its sdk
  // folder (MSBuild nodes, compilers and their servers, VSTest's console).
  if (Program == "dotnet" && P.MainAssembly.empty() && P.Argv.size() > 1 &&
      StringRef(P.Argv[1]) != "exec" && !StringRef(P.Argv[1]).startswith("-")) {
    Why = "it is the .NET SDK's command 'dotnet " + P.Argv[1] + "'";
    return false;
  }
  for (StringRef Path : {StringRef(P.MainAssembly), StringRef(P.Executable)})
    if (inSdk(Path)) {
      Why = "it runs the .NET SDK's " + sys::path::filename(Path).str();
      return false;
    }
  return true;
}

} // namespace weft::prof
