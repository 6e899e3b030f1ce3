//===- weaving/StackMap.h - A thread's block found by its stack ---*- C++ -*-===//
//
// Woven code that keeps counts per thread (the coverage pass's counters, the trace runtime's
// records in summary mode) finds its thread's block without a thread-static lookup: a table, the
// stack map, holds for each 64 KiB of address space (modulo its 4,096 entries, so addresses
// 256 MiB apart share one) the address of a block whose first two words are the range of stack
// pages its thread has been seen at, [low, high). The address of a local of the running method
// picks the entry; the block is the thread's if the address lies in its range, else the slow
// path finds it and takes the entry. The coverage pass makes a map of its own in the module; the
// trace runtime (passes/trace/runtime/TraceRuntime.cs, whose constants a test compares with
// these) has one for every module.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_WEAVING_STACKMAP_H
#define WEFT_WEAVING_STACKMAP_H

#include "weaving/Emit.h"

#include "llvm/ADT/STLFunctionalExtras.h"

namespace weft::passes::stackmap {

/// The address space an entry covers (1 << Shift bytes), and the entries of a map.
constexpr int32_t Shift = 16, Entries = 4096;

/// With the map's address loaded, adds the offset of the entry for the stack address that
/// \p LoadAddress loads: map + 8 * ((address >> Shift) & (Entries - 1)).
inline void emitEntry(Emitter &E, llvm::function_ref<void()> LoadAddress) {
  LoadAddress();
  E.ldc(Shift);
  E.op(il::Opcode::Shr_Un);
  E.ldc(Entries - 1);
  E.op(il::Opcode::And);
  E.ldc(3);
  E.op(il::Opcode::Shl);
  E.op(il::Opcode::Add);
}

/// Goes to \p Elsewhere unless the stack address \p LoadAddress loads lies in the range of the
/// block \p LoadBlock loads: address < block[0] or address >= block[1] leave.
inline void emitCheckRange(Emitter &E, llvm::function_ref<void()> LoadAddress,
                           llvm::function_ref<void()> LoadBlock, il::Instr *Elsewhere) {
  LoadAddress();
  LoadBlock();
  E.op(il::Opcode::Ldind_I);
  E.branch(il::Opcode::Blt_Un, Elsewhere);
  LoadAddress();
  LoadBlock();
  E.ldc(8);
  E.op(il::Opcode::Add);
  E.op(il::Opcode::Ldind_I);
  E.branch(il::Opcode::Bge_Un, Elsewhere);
}

} // namespace weft::passes::stackmap

#endif
