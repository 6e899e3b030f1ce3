//===- weaver/il/Opcodes.cpp ----------------------------------------------===//
#include "weaver/il/Opcodes.h"

#include <array>

namespace weft::il {

namespace {
#define VAR VarStack
constexpr OpcodeInfo Infos[] = {
#define OPCODE(Id, Name, B1, B2, Operand, Pop, Push, Flow)                                         \
  {Name, B1, B2, OperandKind::Operand, Pop, Push, FlowKind::Flow},
#include "weaver/il/Opcodes.def"
};
#undef VAR
static_assert(std::size(Infos) == size_t(Opcode::Count));

struct Tables {
  std::array<int16_t, 256> One, Two;
  Tables() {
    One.fill(-1);
    Two.fill(-1);
    for (size_t I = 0; I < std::size(Infos); ++I)
      (Infos[I].Byte1 == 0xFE ? Two : One)[Infos[I].Byte2] = int16_t(I);
  }
};
const Tables &tables() {
  static const Tables T;
  return T;
}
} // namespace

const OpcodeInfo &info(Opcode Op) { return Infos[size_t(Op)]; }

std::optional<Opcode> oneByteOpcode(uint8_t B) {
  int16_t I = tables().One[B];
  return I < 0 ? std::nullopt : std::optional<Opcode>(Opcode(I));
}

std::optional<Opcode> twoByteOpcode(uint8_t B) {
  int16_t I = tables().Two[B];
  return I < 0 ? std::nullopt : std::optional<Opcode>(Opcode(I));
}

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

unsigned operandSize(OperandKind K) {
  switch (K) {
  case OperandKind::None: return 0;
  case OperandKind::ShortVar:
  case OperandKind::ShortI:
  case OperandKind::ShortU:
  case OperandKind::ShortBr: return 1;
  case OperandKind::Var: return 2;
  case OperandKind::I8:
  case OperandKind::R: return 8;
  default: return 4;
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
