//===- il/BasicBlocks.h - Where basic blocks start --------------*- C++ -*-===//
//
// A basic block is a run of instructions entered only at its first and left only at its last.
// Its first instruction, the leader, is the method's first instruction, a branch or switch target,
// the instruction after one that does not simply go on to the next (a branch, switch, ret, jmp,
// throw, rethrow, leave, endfinally, endfilter), or a boundary of an exception region (so that no
// block straddles a try block, filter or handler).
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_IL_BASICBLOCKS_H
#define WEFT_IL_BASICBLOCKS_H

#include "il/MethodBody.h"

#include <cstddef>
#include <vector>

namespace weft::analysis {

/// The positions in the body's order of the leaders, ascending. An instruction that follows a
/// prefix (tail., constrained., ...) is never one: nothing may come between the two.
std::vector<size_t> blockLeaders(const il::MethodBody &B);
/// The same into \p Out, whose storage is reused (a pass calling it for every method allocates
/// nothing once it has seen a large one).
void blockLeaders(const il::MethodBody &B, std::vector<size_t> &Out);

} // namespace weft::analysis

#endif
