//===- tests/support/Weave.h - Weaving corpus programs in tests -*- C++ -*-===//
//
// What the weaving tests share: the C# helper assemblies the test suite builds (probes,
// replacements) and weaving a corpus program into a folder of its own, ready to run.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_TESTS_SUPPORT_WEAVE_H
#define WEFT_TESTS_SUPPORT_WEAVE_H

#include "tests/support/Env.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <functional>
#include <string>
#include <vector>

namespace weft::test {

/// The assembly a C# project of tests/ builds (tests/<project>/<Project>.csproj, built by its
/// CTest fixture into the build tree).
std::string helperDll(llvm::StringRef Project);

/// The probe assembly of tests/probes and the replacements of tests/replacements, as the
/// probes.build and replacements.build tests build them.
std::string probesDll();
std::string replacementsDll();

struct WovenProgram {
  std::string Dir, Dll;
  CommandResult Weave;
};

/// Runs `weft weave IN -o DIR/NAME.dll ARGS...` on corpus program \p Name, where DIR is a fresh
/// scratch folder \p Folder, and puts the program's companions (copyCorpusCompanions) and the
/// probe and replacement assemblies beside the output.
WovenProgram weaveCorpusProgram(llvm::StringRef Folder, llvm::StringRef Name,
                                llvm::ArrayRef<std::string> Args);

/// `--pass entry-exit:...` with probe type Weft.Probes.<Type> of the probe assembly.
std::string probeOption(llvm::StringRef Type);

/// Whether \p Program makes tens of millions of calls, whose record would not fit in memory:
/// CallHeavy, FSharpTailCalls and the SDK's compilers (named "compiler"). passCases() give it the
/// empty probes instead of the recording ones.
bool makesManyCalls(llvm::StringRef Program);

/// The rows of the trace pass's table (calls, inclusive and exclusive microseconds, method) as
/// "calls<tab>method", in the table's order; a header other than the table's is a failure.
std::vector<std::string> traceTableCalls(llvm::StringRef Table);

/// One way of weaving a program with the built-in passes: a label for test names and the
/// arguments of `weft weave` for a program (the probe kind depends on it: makesManyCalls).
struct PassCase {
  std::string Label;
  std::function<std::vector<std::string>(llvm::StringRef Program)> Args;
};

/// single-ret, entry-exit (recording probes), trace, coverage, and all of the built-in passes at
/// once (intercept-call redirecting a method no test program calls, and span with nobody
/// listening, so that the output stays the same).
std::vector<PassCase> passCases();

} // namespace weft::test

#endif
