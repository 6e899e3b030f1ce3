//===- il/Encoder.h - Method bodies back to bytes ---------------*- C++ -*-===//
//
// Lays an instruction graph out as a method body: computes offsets, picks short or long branch
// forms (a branch that no longer reaches in the short form becomes long; with KeepBranchForms the
// others keep the form they were read with, so an unedited body encodes to its own bytes),
// computes max-stack, picks a tiny or fat header and small or fat exception sections, and returns
// the map from each instruction's original offset to its new one.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_IL_ENCODER_H
#define WEFT_IL_ENCODER_H

#include "il/CallShapes.h"
#include "il/MethodBody.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace weft::il {

struct EncodeOptions {
  /// Keep the form of every branch read from a file as long as it reaches its target; when false
  /// every branch takes the shortest form that reaches.
  bool KeepBranchForms = true;
  /// For max-stack; when null the body's MaxStack is used as it is.
  const CallShapeSource *Shapes = nullptr;
  /// Whether the method returns a value (for the stack effect of `ret`).
  bool ReturnsValue = false;
  /// Fill EncodedBody::OffsetMap (for rewriting the method's debug records).
  bool OffsetMap = true;

  /// The options for a new body of MethodDef row \p Row: max-stack computed with \p Shapes, `ret`
  /// as the method's own signature says.
  static EncodeOptions forMethod(const CallShapeSource &Shapes, uint32_t Row);
};

struct EncodedBody {
  std::vector<uint8_t> Bytes; // header, code, padding and exception sections
  uint32_t CodeSize = 0;
  uint16_t MaxStack = 0;
  bool Fat = false;
  /// (original offset, new offset) for every instruction that came from the file, and the
  /// original end of the code mapped to the new end; sorted by original offset.
  std::vector<std::pair<uint32_t, uint32_t>> OffsetMap;
  /// Short branches that had to become long.
  uint32_t BranchesLengthened = 0;
};

/// Encodes \p Body; the instructions' Offset fields and branch opcodes are updated to what was
/// written. Fails if a branch or region points at an instruction that is not in the body or an
/// operand does not fit its instruction.
llvm::Expected<EncodedBody> encode(MethodBody &Body, const EncodeOptions &Options);

/// Size in bytes of \p I as it would be encoded now.
inline uint32_t encodedSize(const Instr &I) {
  const OpcodeInfo &Info = I.info();
  uint32_t Size = Info.opcodeSize();
  if (Info.Operand == OperandKind::Switch)
    return Size + 4 + 4 * uint32_t(I.Targets.size());
  return Size + operandSize(Info.Operand);
}

} // namespace weft::il

#endif
