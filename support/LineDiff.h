//===- support/LineDiff.h - The lines two texts differ by -------*- C++ -*-===//
//
// A shortest edit script between two lists of lines (Myers' O(ND) algorithm, in linear space:
// each step finds the middle snake of the range and splits it there), and its grouping into
// hunks with context, as a unified diff shows them.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_SUPPORT_LINEDIFF_H
#define WEFT_SUPPORT_LINEDIFF_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <vector>

namespace weft {

/// The lines of \p Text, without their line ends; a last line without one counts.
std::vector<llvm::StringRef> splitLines(llvm::StringRef Text);

enum class LineOp : uint8_t { Same, Removed, Added };

/// One line of an edit script: A is its index in the first list (Same, Removed), B in the second
/// (Same, Added).
struct LineEdit {
  LineOp Op;
  uint32_t A, B;
};

/// The shortest edit script that turns \p A into \p B, in order; among the shortest, removals
/// come before the additions they stand beside.
std::vector<LineEdit> diffLines(llvm::ArrayRef<llvm::StringRef> A,
                                llvm::ArrayRef<llvm::StringRef> B);

/// A run of changes with up to Context unchanged lines around it. Starts are 0-based indices;
/// unified diff headers count from 1 (and name the line before when a side has no lines).
struct Hunk {
  uint32_t AStart = 0, ALines = 0, BStart = 0, BLines = 0;
  std::vector<LineEdit> Lines;
};

/// The hunks of \p Script: changes closer than 2 * \p Context unchanged lines share one.
std::vector<Hunk> makeHunks(llvm::ArrayRef<LineEdit> Script, unsigned Context);

} // namespace weft

#endif
