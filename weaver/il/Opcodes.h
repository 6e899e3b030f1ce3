//===- weaver/il/Opcodes.h - The CIL opcode table ---------------*- C++ -*-===//
#ifndef WEFT_WEAVER_IL_OPCODES_H
#define WEFT_WEAVER_IL_OPCODES_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace weft::il {

enum class Opcode : uint16_t {
#define OPCODE(Id, Name, B1, B2, Operand, Pop, Push, Flow) Id,
#include "weaver/il/Opcodes.def"
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

const OpcodeInfo &info(Opcode Op);
inline llvm::StringRef name(Opcode Op) { return info(Op).Name; }

/// The opcode a byte (or, after 0xFE, a second byte) encodes, if any.
std::optional<Opcode> oneByteOpcode(uint8_t B);
std::optional<Opcode> twoByteOpcode(uint8_t B);

/// Whether the instruction can raise an exception itself (ECMA-335 III lists what each raises):
/// calls, allocation, field, array and indirect access (null references, bounds, type
/// initializers), checked arithmetic and conversions, division, casts, throw. What only moves,
/// compares or computes with values of the stack, locals and arguments, and plain control flow,
/// cannot.
bool mayThrow(Opcode Op);

/// Size of an operand in bytes; 0 for None, and 4 (the count) for Switch.
unsigned operandSize(OperandKind K);

/// The short and long forms of a branch (br.s <-> br, ...). Returns the opcode itself for an
/// opcode that has no other form.
Opcode shortForm(Opcode Op);
Opcode longForm(Opcode Op);

} // namespace weft::il

#endif
