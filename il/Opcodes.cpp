//===- il/Opcodes.cpp -----------------------------------------------------===//
#include "il/Opcodes.h"

namespace weft::il {

bool mayThrow(Opcode Op) {
  if ((Op >= Opcode::Ldarg_0 && Op <= Opcode::Stloc_S) ||
      (Op >= Opcode::Ldnull && Op <= Opcode::Pop) || (Op >= Opcode::Br_S && Op <= Opcode::Switch) ||
      (Op >= Opcode::Ceq && Op <= Opcode::Clt_Un) ||
      (Op >= Opcode::Conv_I1 && Op <= Opcode::Conv_U8) ||
      (Op >= Opcode::And && Op <= Opcode::Not) || (Op >= Opcode::Ldarg && Op <= Opcode::Stloc) ||
      info(Op).isPrefix())
    return false;
  switch (Op) {
  case Opcode::Nop:
  case Opcode::Ret:
  case Opcode::Add:
  case Opcode::Sub:
  case Opcode::Mul:
  case Opcode::Conv_R_Un:
  case Opcode::Conv_U2:
  case Opcode::Conv_U1:
  case Opcode::Conv_I:
  case Opcode::Conv_U:
  case Opcode::Ldstr:
  case Opcode::Ldftn:
  case Opcode::Sizeof:
  case Opcode::Arglist: return false;
  default: return true;
  }
}

Opcode shortForm(Opcode Op) {
  const OpcodeInfo &I = info(Op);
  if (I.Operand != OperandKind::Br)
    return Op;
  if (Op == Opcode::Leave)
    return Opcode::Leave_S;
  // br..blt.un (0x38-0x44) mirror br.s..blt.un.s (0x2B-0x37).
  return *oneByteOpcode(I.Byte2 - 0x0D);
}

Opcode longForm(Opcode Op) {
  const OpcodeInfo &I = info(Op);
  if (I.Operand != OperandKind::ShortBr)
    return Op;
  if (Op == Opcode::Leave_S)
    return Opcode::Leave;
  return *oneByteOpcode(I.Byte2 + 0x0D);
}

} // namespace weft::il
