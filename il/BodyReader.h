//===- il/BodyReader.h - Method bodies as stored ----------------*- C++ -*-===//
//
// Reads a method body from the bytes at its RVA: the tiny or fat header, the code, and the
// small or fat exception-handling sections that follow it (ECMA-335 II.25.4), and decodes the
// code into instructions with their operands. Branch targets are given as IL offsets here; the
// editable instruction graph turns them into references to instructions.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_IL_BODYREADER_H
#define WEFT_IL_BODYREADER_H

#include "il/Opcodes.h"
#include "support/ByteReader.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace weft::pe {
class Image;
}
namespace weft::metadata {
class Module;
}

namespace weft::il {

enum ClauseKind : uint32_t {
  ClauseException = 0x0,
  ClauseFilter = 0x1,
  ClauseFinally = 0x2,
  ClauseFault = 0x4,
};

struct ExceptionClause {
  uint32_t Kind = ClauseException;
  uint32_t TryOffset = 0, TryLength = 0;
  uint32_t HandlerOffset = 0, HandlerLength = 0;
  uint32_t ClassTokenOrFilterOffset = 0; // catch type token, or the filter's offset

  uint32_t tryEnd() const { return TryOffset + TryLength; }
  uint32_t handlerEnd() const { return HandlerOffset + HandlerLength; }
};

enum MethodHeaderFlags : uint16_t {
  HeaderTiny = 0x2,
  HeaderFat = 0x3,
  HeaderMoreSects = 0x8,
  HeaderInitLocals = 0x10,
};

struct RawMethodBody {
  bool Fat = false;
  uint16_t Flags = 0;     // fat header flags (low 12 bits)
  uint8_t HeaderSize = 1; // in bytes
  uint16_t MaxStack = 8;
  uint32_t LocalVarSigToken = 0;
  llvm::ArrayRef<uint8_t> Code;
  uint64_t FileOffset = 0; // of the header
  std::vector<ExceptionClause> Clauses;
  uint8_t NumSections = 0;
  bool FatSections = false; // whether any EH section uses the fat form
  uint32_t TotalSize = 0;   // header, code, padding and sections

  bool initLocals() const { return Flags & HeaderInitLocals; }
  uint64_t codeFileOffset() const { return FileOffset + HeaderSize; }
};

/// Reads the body that starts at \p Bytes[0] (the bytes run to the end of the section), which is at
/// \p FileOffset in the file.
llvm::Expected<RawMethodBody> readMethodBody(llvm::ArrayRef<uint8_t> Bytes, uint64_t FileOffset);

/// How many bytes of IL code the readers take from one module, counting each method's body once
/// per method: a real module's bodies add up to less than its file, but a hostile one could point
/// thousands of methods at one large body and make every pass over them take without bound.
constexpr uint64_t methodCodeBudget(uint64_t FileSize) {
  return 8 * FileSize + (uint64_t(1) << 20);
}

/// The IL body of MethodDef row \p Row of \p M, which \p Img holds: nothing for a method without
/// one (no RVA, or native or runtime-provided code). Errors name the method's token.
llvm::Expected<std::optional<RawMethodBody>>
readMethodDefBody(const pe::Image &Img, const metadata::Module &M, uint32_t Row);

struct Instruction {
  uint32_t Offset = 0;
  uint32_t Size = 0; // opcode and operand bytes
  Opcode Op = Opcode::Nop;
  union {
    int64_t Int;     // ShortI, ShortU, I, I8
    double Real;     // ShortR, R
    uint32_t Token;  // Method, Field, Type, Tok, String, Sig
    uint32_t Index;  // ShortVar, Var
    uint32_t Target; // ShortBr, Br: absolute IL offset (may be out of range; callers check)
    uint32_t Count;  // Switch: number of targets
  };
  Instruction() : Int(0) {}
  const OpcodeInfo &info() const { return il::info(Op); }
  uint32_t next() const { return Offset + Size; }
};

/// Decodes the instructions of a method's code one after the other.
class InstructionDecoder {
public:
  InstructionDecoder(llvm::ArrayRef<uint8_t> Code, uint64_t CodeFileOffset)
      : R(Code, CodeFileOffset) {}

  bool atEnd() const { return R.atEnd() || !R.ok(); }
  /// Decodes the next instruction; returns false at the end or on malformed code (see takeError).
  bool next(Instruction &I);
  llvm::Error takeError();

  /// The absolute target offset of switch case \p Case of the switch instruction \p I.
  uint32_t switchTarget(const Instruction &I, uint32_t Case) const;

private:
  ByteReader R;
  std::string Detail;
};

/// Decodes a whole method's code; fails on an unknown opcode or a truncated operand.
llvm::Error decodeInstructions(llvm::ArrayRef<uint8_t> Code, uint64_t CodeFileOffset,
                               std::vector<Instruction> &Out);

} // namespace weft::il

#endif
