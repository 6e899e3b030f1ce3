//===- runtime-profiler/ProcessFilter.h - Which processes are instrumented --*- C++ -*-===//
//
// `weft run -- dotnet test` starts a tree of .NET processes, all of which inherit the variables
// that load the profiler: the SDK's command, MSBuild's nodes, compilers and build servers, and the
// test host. The profiler instruments the processes the user chose (WEFT_PROCESSES, `weft run
// --process`: globs matched against the program's name, its main assembly's file name or the
// whole command line) and, by default, every process but the SDK's own: its commands
// (`dotnet build`, `dotnet test`, ...) and the tools it runs from its sdk folder (MSBuild,
// the compilers, VSTest's console).
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_RUNTIME_PROFILER_PROCESSFILTER_H
#define WEFT_RUNTIME_PROFILER_PROCESSFILTER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace weft::prof {

/// What a process is, as the filter sees it.
struct ProcessIdentity {
  std::vector<std::string> Argv; // its command line
  std::string Executable;        // the program's path (/proc/self/exe)
  /// The main assembly a `dotnet [exec] ... app.dll` host runs; empty for an apphost or the
  /// SDK's commands.
  std::string MainAssembly;

  /// This process.
  static ProcessIdentity current();
  std::string commandLine() const;
};

class ProcessFilter {
public:
  /// From WEFT_PROCESSES: globs, ';' between them; empty for the default.
  static llvm::Expected<ProcessFilter> parse(llvm::StringRef Patterns);
  /// Whether \p P is one to instrument; if not, why in \p Why.
  bool chooses(const ProcessIdentity &P, std::string &Why) const;

private:
  std::vector<std::string> Patterns;
};

} // namespace weft::prof

#endif
