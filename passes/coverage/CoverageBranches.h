//===- passes/coverage/CoverageBranches.h - Branch points as coverlet counts -*- C++ -*-===//
//
// The branch points of a method as coverlet (coverlet.msbuild 10) counts them, so that a report of
// weft's coverage pass gives a user switching from coverlet the same branch figures:
//
// - every conditional branch instruction of the compiler's code (brtrue, brfalse, the
//   compare-and-branch forms, switch) has outcomes: path 0 where it falls through, then path 1
//   where it jumps (a switch: paths 1..N, its targets in order). An outcome ends where it leads
//   after a chain of unconditional `br`s (EndOffset). Ordinals number the outcomes of the method.
// - the line of a branch is that of the closest visible sequence point at or before it (the first
//   one of the method when none is before it); a method without visible points has none.
// - branches the compiler made for its own machinery are left out: the state dispatch of
//   iterators and async state machines, their awaiter checks, cached lambda and method-group
//   delegates (in a non-generic class: coverlet counts those of a generic one), `catch` and
//   `throw;` bookkeeping in async methods, `await foreach` and `await using` checks, async
//   iterators' dispose checks, combined cancellation tokens, exception filters, `finally` blocks
//   without a visible statement, expression-breakpoint guards and the constant-false arm of
//   relational `and` patterns.
// - an outcome leading to an instruction coverlet does not count (code after
//   ExceptionDispatchInfo.Throw() in an async method) is no branch point.
//
// An outcome's hits are the arrivals at the instruction at its EndOffset, except for a jump whose
// target can also be reached by falling into it, outside exception regions: coverlet counts
// those only when the jump is taken (Taken: the runs of the branch less the times it went its
// other ways, each the arrivals where that way leads less whatever else arrives there:
// CoverageJumps.h; where the counters cannot tell, OwnCounter: a counter on the jump). Where no
// statement starts at the target, such jumps that come before any arrivals counter there go past
// those counters in coverlet (Bypasses), and the outcomes counting arrivals there leave them out.
// Such a jump also goes past the statements of the `br`s it leads through (Past): they are not
// counted for it.
//
// The rules follow coverlet's documented behaviour and its CecilSymbolHelper and Instrumenter,
// matched on the macro-free instruction forms coverlet looks at (it expands short forms first).
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_PASSES_COVERAGE_COVERAGEBRANCHES_H
#define WEFT_PASSES_COVERAGE_COVERAGEBRANCHES_H

#include "il/MethodBody.h"
#include "metadata/Module.h"
#include "metadata/pdb/SequencePoints.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <vector>

namespace weft::passes {

struct BranchOutcome {
  uint32_t Offset = 0, EndOffset = 0, Path = 0, Ordinal = 0;
  uint32_t Document = 0, Line = 0; // a Document row of the PDB, and the line
  /// Counted only when the jump is taken (coverlet's counter on the jump): hits = the runs of the
  /// block holding Offset and of those holding MoreRuns, less the arrivals at LessArrivals (the
  /// instruction after the branch first; CoverageJumps.h).
  bool Taken = false;
  std::vector<uint32_t> LessArrivals, MoreRuns;
  /// A taken jump the counters cannot tell from the branch's other ways to the same instruction
  /// (two arms of a switch with one target): the coverage pass gives it a counter of its own on
  /// the jump, as coverlet does, the method's counter number Counter.
  bool OwnCounter = false;
  uint32_t Counter = 0;
  /// A taken jump to an instruction where no statement starts, placed before any other outcome
  /// there: coverlet's counter for it goes straight to the instruction, past the counters of the
  /// outcomes that count arrivals there, which therefore do not count these jumps.
  bool Bypasses = false;
  /// A taken jump through `br`s that start statements of their own (`goto case`, `continue;` or
  /// `return;` reached by a conditional branch): their offsets. coverlet's counter for the jump
  /// goes on to where the chain ends, past those statements' counters, which do not count it.
  std::vector<uint32_t> Past;
};

/// Whether \p Parent (a MethodDef or TypeDef token) carries [CompilerGenerated] itself.
bool compilerGenerated(const metadata::Module &M, metadata::Token Parent);

/// The position of each TypeDef row (the vector's index) in the order coverlet instruments types,
/// Cecil's ModuleDefinition.GetTypes: each top-level type in row order, followed by the types
/// nested in it (theirs after each, in row order).
std::vector<uint32_t> coverletTypeOrder(const metadata::Module &M);

/// The branch points of the method \p MethodRow (declared by \p TypeRow) of \p M, from its body
/// \p B before any counter is placed (instructions without an original offset are ignored) and
/// its sequence points \p Points.
/// Whose rules: coverlet.msbuild's and coverlet.collector's 10.0.1 (the coverage pass's
/// default), or coverlet.MTP's 10.1.0, which also leaves out the delegate-cache checks whose
/// cache is a field of a generic class, and a `brtrue` on String.op_Equality or String.Equals
/// that falls through to a `br` (`x is "a" or "b"`; the last comparison of a switch on strings).
enum class CoverletRules { V10_0, V10_1 };

std::vector<BranchOutcome> coverletBranches(const metadata::Module &M, uint32_t MethodRow,
                                            uint32_t TypeRow, const il::MethodBody &B,
                                            llvm::ArrayRef<metadata::pdb::SequencePoint> Points,
                                            CoverletRules Rules = CoverletRules::V10_0);

} // namespace weft::passes

#endif
