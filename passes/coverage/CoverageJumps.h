//===- passes/coverage/CoverageJumps.h - How often an edge is taken -*- C++ -*-===//
//
// coverlet counts some branch outcomes only when their jump is taken (a counter of their own on
// the jump). weft's counters are at the starts of blocks, so it finds such a count from them:
// how often a branch went one way is how often it ran less how often it went each other way, and
// how often it went another way is the arrivals where that way leads less whatever else arrives
// there (other jumps, found the same way, a few steps deep). The result is a sum of counters: the
// runs of the blocks (or segments) holding some instructions less the arrivals at some block
// starts, all of which the coverage pass gives counters (every target of a branch, every
// instruction after one).
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_PASSES_COVERAGE_COVERAGEJUMPS_H
#define WEFT_PASSES_COVERAGE_COVERAGEJUMPS_H

#include "il/MethodBody.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace weft::passes {

/// How often an edge was taken: the runs of the blocks or segments holding the instructions at
/// Runs, less the arrivals at the block starts at Arrivals (original offsets; an offset may come
/// more than once).
struct EdgeCount {
  std::vector<uint32_t> Runs, Arrivals;
};

class JumpCounts {
public:
  explicit JumpCounts(const il::MethodBody &B);

  /// How often the conditional branch at original offset \p Offset went its way \p Path (a
  /// jump: 1, or a switch's target 1..N), if its counters can tell: not when another way of the
  /// branch leads to the same instruction, nor when what arrives there cannot be told apart.
  std::optional<EdgeCount> taken(uint32_t Offset, uint32_t Path) const;

private:
  struct Edge {
    size_t From;
    uint32_t Path; // 0 on to the next instruction; 1.. a jump or a switch's targets
  };

  /// The instruction \p I goes to on its way \p Path, or -1.
  ptrdiff_t dest(size_t I, uint32_t Path) const;
  /// How many ways there are out of \p I (1 + the targets of a conditional branch).
  uint32_t ways(size_t I) const;
  bool conditional(size_t I) const;
  /// Adds to \p Out how often edge (\p From, \p Path) is taken.
  bool edge(size_t From, uint32_t Path, unsigned Depth, EdgeCount &Out) const;
  /// Adds to \p Out how often \p From went to \p To: the arrivals at To less the other edges.
  bool into(size_t To, size_t From, unsigned Depth, EdgeCount &Out) const;

  std::vector<const il::Instr *> Code; // the original instructions, in order
  llvm::DenseMap<const il::Instr *, size_t> Index;
  std::vector<llvm::SmallVector<Edge, 2>> Into; // the edges into each instruction
  std::vector<bool> Uncounted; // entered otherwise than by an edge (the method's start, handlers)
  bool Whole = true;           // no code of an earlier pass: every edge is in Into
  mutable unsigned Budget = 0; // steps left for the current question
};

} // namespace weft::passes

#endif
