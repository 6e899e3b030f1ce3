//===- tests/support/Golden.h - Checked-in expected text --------*- C++ -*-===//
//
// Golden tests compare what a run produced with a file under tests/golden; with
// WEFT_UPDATE_GOLDEN=1 they rewrite the file instead (review the diff before committing it).
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_TESTS_SUPPORT_GOLDEN_H
#define WEFT_TESTS_SUPPORT_GOLDEN_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace weft::test {

/// The first line where \p Actual differs from \p Expected, both shown; empty if none does.
std::string firstDifference(llvm::StringRef Expected, llvm::StringRef Actual);

/// Checks \p Got against tests/golden/\p RelativePath (a gtest failure naming \p What and the
/// first difference), or rewrites that file under WEFT_UPDATE_GOLDEN.
void expectGolden(llvm::StringRef Got, llvm::StringRef RelativePath, llvm::StringRef What);

} // namespace weft::test

#endif
