//===- il/Prefixes.h - Prefixes and what they bind --------------*- C++ -*-===//
//
// ECMA-335 III.2: a prefix (tail., constrained., readonly., volatile., unaligned., no.) modifies
// the instruction that follows it, and the two form one unit: nothing may be placed between them,
// nothing may branch to the prefixed instruction, and an exception region may not start or end
// between them. `tail.` binds further: its call must be followed by `ret`, so the pair
// `tail. call; ret` is a unit too. Passes that insert code use these to find where a unit starts;
// the verifier uses them to check what the runtime checks.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_IL_PREFIXES_H
#define WEFT_IL_PREFIXES_H

#include "il/MethodBody.h"
#include "il/Opcodes.h"

#include <cstddef>
#include <vector>

namespace weft::il {

/// Whether \p Next may directly follow the prefix \p Prefix: an instruction the prefix applies to,
/// or a prefix it may be combined with (tail. and constrained., volatile. and unaligned.,
/// each pair in either order). Whether a call may take constrained. depends on its target too (see
/// the verifier).
bool prefixMayPrecede(Opcode Prefix, Opcode Next);

/// The position of the first prefix of the run of prefixes that ends just before position \p P
/// (P itself when the instruction there has no prefix). Code inserted "before" the instruction at
/// P belongs before this position.
size_t prefixedStart(const std::vector<Instr *> &Order, size_t P);

/// Whether the instruction at \p P is a call (call, callvirt, calli) carrying the `tail.` prefix,
/// possibly with constrained. after it.
bool isTailCall(const std::vector<Instr *> &Order, size_t P);

/// Whether the instruction at \p P is the `ret` that completes a tail call.
bool isTailCallReturn(const std::vector<Instr *> &Order, size_t P);

/// A tail call: `tail.` [constrained. T] call/callvirt/calli, then `ret`.
struct TailCallSite {
  size_t First; // the tail. prefix
  size_t Call;
  size_t Ret;
};

/// Every tail call of \p Order that is followed by `ret`, in order.
std::vector<TailCallSite> tailCallSites(const std::vector<Instr *> &Order);

} // namespace weft::il

#endif
