//===- il/Opcodes.h - The CIL opcode table ----------------------*- C++ -*-===//
#ifndef WEFT_IL_OPCODES_H
#define WEFT_IL_OPCODES_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace weft::il {

enum class Opcode : uint16_t {
#define OPCODE(Id, Name, B1, B2, Operand, Pop, Push, Flow) Id,
#include "il/Opcodes.def"
  Count
};

/// The inline operand of an instruction (ECMA-335 III.1.9 names in the comments).
enum class OperandKind : uint8_t {
  None,     // InlineNone
  ShortVar, // ShortInlineVar: unsigned 8-bit argument or local index
  Var,      // InlineVar: unsigned 16-bit index
  ShortI,   // ShortInlineI: signed 8-bit integer
  ShortU,   // unsigned 8-bit value (unaligned., no.)
  I,        // InlineI
  I8,       // InlineI8
  ShortR,   // ShortInlineR: float32
  R,        // InlineR: float64
  ShortBr,  // ShortInlineBrTarget: signed 8-bit displacement
  Br,       // InlineBrTarget: signed 32-bit displacement
  Switch,   // InlineSwitch: count, then count 32-bit displacements
  Method,   // InlineMethod: MethodDef, MemberRef or MethodSpec token
  Field,    // InlineField: Field or MemberRef token
  Type,     // InlineType: TypeDef, TypeRef or TypeSpec token
  Tok,      // InlineTok: any of the above
  String,   // InlineString: #US heap token
  Sig,      // InlineSig: StandAloneSig token
};

enum class FlowKind : uint8_t { Next, Break, Call, Branch, CondBranch, Return, Throw, Meta };

/// Stack effect that depends on the operand.
constexpr int8_t VarStack = -1;

struct OpcodeInfo {
  const char *Name;
  uint8_t Byte1; // 0x00 for one-byte opcodes, 0xFE for two-byte ones
  uint8_t Byte2;
  OperandKind Operand;
  int8_t Pop;  // VarStack if it depends on the operand
  int8_t Push; // likewise
  FlowKind Flow;

  unsigned opcodeSize() const { return Byte1 == 0xFE ? 2 : 1; }
  bool isPrefix() const { return Flow == FlowKind::Meta; }
  bool isBranch() const { return Operand == OperandKind::ShortBr || Operand == OperandKind::Br; }
};

namespace detail {
// The tables live in the header so that the lookups below inline: the decoder, the passes and
// the encoder ask for an instruction's facts several times per instruction.
#define VAR VarStack
inline constexpr OpcodeInfo Infos[] = {
#define OPCODE(Id, Name, B1, B2, Operand, Pop, Push, Flow)                                         \
  {Name, B1, B2, OperandKind::Operand, Pop, Push, FlowKind::Flow},
#include "il/Opcodes.def"
};
#undef VAR
static_assert(sizeof(Infos) / sizeof(Infos[0]) == size_t(Opcode::Count));

/// For each byte, the opcode it encodes (-1: none): One alone, Two after 0xFE.
struct ByteTables {
  int16_t One[256], Two[256];
};
constexpr ByteTables makeByteTables() {
  ByteTables T{};
  for (int I = 0; I < 256; ++I)
    T.One[I] = T.Two[I] = -1;
  for (size_t I = 0; I < size_t(Opcode::Count); ++I)
    (Infos[I].Byte1 == 0xFE ? T.Two : T.One)[Infos[I].Byte2] = int16_t(I);
  return T;
}
inline constexpr ByteTables Bytes = makeByteTables();

inline std::optional<Opcode> opcodeAt(int16_t I) {
  return I < 0 ? std::nullopt : std::optional<Opcode>(Opcode(I));
}
} // namespace detail

inline const OpcodeInfo &info(Opcode Op) { return detail::Infos[size_t(Op)]; }
inline llvm::StringRef name(Opcode Op) { return info(Op).Name; }

/// The opcode a byte (or, after 0xFE, a second byte) encodes, if any.
inline std::optional<Opcode> oneByteOpcode(uint8_t B) {
  return detail::opcodeAt(detail::Bytes.One[B]);
}
inline std::optional<Opcode> twoByteOpcode(uint8_t B) {
  return detail::opcodeAt(detail::Bytes.Two[B]);
}

/// Whether the instruction can raise an exception itself (ECMA-335 III lists what each raises):
/// calls, allocation, field, array and indirect access (null references, bounds, type
/// initializers), checked arithmetic and conversions, division, casts, throw. What only moves,
/// compares or computes with values of the stack, locals and arguments, and plain control flow,
/// cannot.
bool mayThrow(Opcode Op);

/// Size of an operand in bytes; 0 for None, and 4 (the count) for Switch.
inline unsigned operandSize(OperandKind K) {
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

/// The short and long forms of a branch (br.s <-> br, ...). Returns the opcode itself for an
/// opcode that has no other form.
Opcode shortForm(Opcode Op);
Opcode longForm(Opcode Op);

} // namespace weft::il

#endif
