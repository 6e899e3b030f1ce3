//===- tests/fuzz/Targets.h - What the fuzz targets do with one input -*- C++ -*-===//
//
// The work of the FuzzSpec, FuzzPdb and FuzzWeave targets, kept apart from libFuzzer's entry
// point so that the regression test (tests/unit/FuzzRegressionTest.cpp) replays saved inputs
// through the same code in the ordinary build. Bad input must be refused with an error; anything
// else that goes wrong is a bug in weft, reported by bug(), which aborts.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_TESTS_FUZZ_TARGETS_H
#define WEFT_TESTS_FUZZ_TARGETS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Twine.h"

#include <cstdint>
#include <string>

namespace weft::fuzz {

/// A spec file: an error, or a spec whose globs, pass uses and selection work.
void specInput(llvm::ArrayRef<uint8_t> Bytes);

/// A portable PDB file: read completely, its sequence points decoded, rewritten for a changed
/// method and checksummed; each step an error or a result. The first error that refused the
/// input, or empty if it read completely.
std::string pdbInput(llvm::ArrayRef<uint8_t> Bytes);

/// One byte choosing the passes, one choosing a method of the host assembly
/// (tests/data/fuzz-weave), then a method body (header, code, exception sections) that replaces
/// that method's. The module is woven as `weft weave` does it and written; when the input's
/// methods all verify, the output's must too.
void weaveInput(llvm::ArrayRef<uint8_t> Bytes);

/// The pass sets weaveInput chooses from, by the first byte modulo this.
constexpr unsigned WeavePassSets = 7;

/// Reports a bug in weft found by an input, and aborts.
[[noreturn]] void bug(const llvm::Twine &What);

} // namespace weft::fuzz

#endif
