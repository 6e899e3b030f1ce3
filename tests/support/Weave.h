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

#include <string>

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
/// scratch folder \p Folder, and puts the program's runtime config and the probe and replacement
/// assemblies beside the output (no deps.json: the host then loads every assembly of the folder).
WovenProgram weaveCorpusProgram(llvm::StringRef Folder, llvm::StringRef Name,
                                llvm::ArrayRef<std::string> Args);

} // namespace weft::test

#endif
