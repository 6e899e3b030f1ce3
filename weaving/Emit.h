//===- weaving/Emit.h - Building instruction sequences ----------*- C++ -*-===//
//
// A cursor that places new instructions before a given one (or at the end), picking the short
// macro forms of local and argument instructions; the encoder widens what does not fit.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_WEAVING_EMIT_H
#define WEFT_WEAVING_EMIT_H

#include "il/MethodBody.h"

#include <cstdint>

namespace weft::passes {

class Emitter {
public:
  /// Places instructions before \p Before (null: at the end of the body).
  Emitter(il::MethodBody &B, il::Instr *Before) : B(B), Before(Before) {}

  il::Instr *op(il::Opcode Op) { return place(B.create(Op)); }
  il::Instr *tok(il::Opcode Op, uint32_t Token) { return place(B.createToken(Op, Token)); }
  il::Instr *branch(il::Opcode Op, il::Instr *Target) { return place(B.createBranch(Op, Target)); }
  il::Instr *ldc(int32_t V) {
    if (V >= -1 && V <= 8)
      return op(il::Opcode(unsigned(il::Opcode::Ldc_I4_0) + V));
    if (V >= -128 && V <= 127)
      return place(B.create(il::Opcode::Ldc_I4_S, V));
    return place(B.create(il::Opcode::Ldc_I4, V));
  }
  il::Instr *ldcI8(int64_t V) { return place(B.create(il::Opcode::Ldc_I8, V)); }
  il::Instr *ldloc(uint32_t N) { return var(N, il::Opcode::Ldloc_0, il::Opcode::Ldloc_S); }
  il::Instr *stloc(uint32_t N) { return var(N, il::Opcode::Stloc_0, il::Opcode::Stloc_S); }
  il::Instr *ldarg(uint32_t N) { return var(N, il::Opcode::Ldarg_0, il::Opcode::Ldarg_S); }
  il::Instr *ldloca(uint32_t N) { return indexed(il::Opcode::Ldloca_S, N); }

  /// Places an instruction made elsewhere (a branch target made before the branch).
  il::Instr *put(il::Instr *I) { return place(I); }
  il::MethodBody &body() const { return B; }

  /// The first instruction placed (null if none yet).
  il::Instr *first() const { return First; }
  /// The instruction it places before (null: the end of the body).
  il::Instr *before() const { return Before; }
  /// Takes \p I, which other code placed where this emitter places, as placed by it (the first
  /// such becomes first()).
  void adopt(il::Instr *I) {
    if (!First)
      First = I;
  }

private:
  il::Instr *var(uint32_t N, il::Opcode Zero, il::Opcode Short) {
    if (N < 4)
      return op(il::Opcode(unsigned(Zero) + N));
    return indexed(Short, N);
  }
  il::Instr *indexed(il::Opcode Op, uint32_t N) {
    il::Instr *I = B.create(Op);
    I->Index = N;
    return place(I);
  }
  il::Instr *place(il::Instr *I) {
    B.insertBefore(Before, I);
    if (!First)
      First = I;
    return I;
  }

  il::MethodBody &B;
  il::Instr *Before;
  il::Instr *First = nullptr;
};

/// Makes the code from \p TryFirst to the end of \p B a try block whose exceptions (those of
/// \p CatchType: System.Object for all) are caught and dropped, and returns after it:
/// `leave RET; catch { pop; leave RET } RET: ret`.
inline void dropExceptionsAndReturn(il::MethodBody &B, il::Instr *TryFirst, uint32_t CatchType) {
  Emitter E(B, nullptr);
  il::Instr *Ret = B.create(il::Opcode::Ret);
  E.branch(il::Opcode::Leave, Ret);
  il::Instr *Handler = E.op(il::Opcode::Pop);
  E.branch(il::Opcode::Leave, Ret);
  B.insertBefore(nullptr, Ret);
  il::ExceptionRegion R;
  R.Kind = il::RegionKind::Catch;
  R.TryStart = TryFirst;
  R.TryEnd = R.HandlerStart = Handler;
  R.HandlerEnd = Ret;
  R.CatchType = CatchType;
  B.Regions.push_back(R);
}

/// Turns \p I (already in the body) into \p Op with local or argument number \p N, in place: what
/// branched to it still does.
inline void rewriteAsStloc(il::Instr *I, uint32_t N) {
  if (N < 4) {
    I->Op = il::Opcode(unsigned(il::Opcode::Stloc_0) + N);
  } else {
    I->Op = il::Opcode::Stloc_S;
    I->Index = N;
  }
}

} // namespace weft::passes

#endif
