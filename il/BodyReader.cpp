//===- il/BodyReader.cpp --------------------------------------------------===//
#include "il/BodyReader.h"

#include "metadata/Module.h"
#include "pe/Image.h"
#include "support/Error.h"
#include "support/Format.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"

using namespace llvm;

namespace weft::il {

namespace {
constexpr uint8_t SectEHTable = 0x01;
constexpr uint8_t SectFatFormat = 0x40;
constexpr uint8_t SectMoreSects = 0x80;
constexpr unsigned SmallClauseSize = 12;
constexpr unsigned FatClauseSize = 24;
// A method has few sections (one EH table in practice); more than this is refused.
constexpr unsigned MaxSections = 16;
} // namespace

Expected<RawMethodBody> readMethodBody(ArrayRef<uint8_t> Bytes, uint64_t FileOffset) {
  RawMethodBody B;
  B.FileOffset = FileOffset;
  ByteReader R(Bytes, FileOffset);
  uint8_t First = R.u8();
  if (!R.ok())
    return formatError("method header", FileOffset, "the body lies outside the file");
  uint32_t CodeSize = 0;
  if ((First & 3) == HeaderTiny) {
    CodeSize = First >> 2;
    B.HeaderSize = 1;
  } else if ((First & 3) == HeaderFat) {
    R.seek(0);
    uint16_t FlagsAndSize = R.u16();
    B.Fat = true;
    B.Flags = FlagsAndSize & 0x0FFF;
    B.HeaderSize = (FlagsAndSize >> 12) * 4;
    B.MaxStack = R.u16();
    CodeSize = R.u32();
    B.LocalVarSigToken = R.u32();
    if (Error E = R.takeError("fat method header"))
      return std::move(E);
    if (B.HeaderSize < 12)
      return formatError("fat method header", FileOffset,
                         "header size " + Twine(B.HeaderSize) + " is smaller than 12 bytes");
    R.seek(B.HeaderSize);
  } else {
    return formatError("method header", FileOffset,
                       "first byte 0x" + hexstr(First, false, 2) +
                           " is neither a tiny (..10) nor a fat (..11) header");
  }
  if (!R.ok() || CodeSize > R.remaining())
    return formatError("method body", FileOffset,
                       "code size " + Twine(CodeSize) + " runs past the end of the section");
  B.Code = R.bytes(CodeSize);
  B.TotalSize = B.HeaderSize + CodeSize;
  if (!(B.Fat && (B.Flags & HeaderMoreSects)))
    return B;

  bool More = true;
  while (More) {
    R.align(4);
    uint64_t SectOff = R.fileOffset();
    if (!R.ok() || R.remaining() < 4)
      return formatError("exception section", SectOff, "runs past the end of the section");
    if (++B.NumSections > MaxSections)
      return formatError("exception section", SectOff,
                         "more than " + Twine(MaxSections) + " data sections");
    uint8_t Kind = R.u8();
    bool FatSect = Kind & SectFatFormat;
    uint32_t DataSize;
    if (FatSect) {
      DataSize = R.u8() | (uint32_t(R.u8()) << 8) | (uint32_t(R.u8()) << 16);
    } else {
      DataSize = R.u8();
      R.u16(); // reserved
    }
    More = Kind & SectMoreSects;
    if (DataSize < 4 || DataSize - 4 > R.remaining())
      return formatError("exception section", SectOff,
                         "data size " + Twine(DataSize) + " does not fit in the section");
    if (!(Kind & SectEHTable)) {
      R.skip(DataSize - 4); // some other kind of data section
      continue;
    }
    B.FatSections |= FatSect;
    unsigned ClauseSize = FatSect ? FatClauseSize : SmallClauseSize;
    unsigned Count = (DataSize - 4) / ClauseSize;
    ByteReader C(R.bytes(DataSize - 4), R.fileOffset());
    for (unsigned I = 0; I < Count; ++I) {
      ExceptionClause EC;
      if (FatSect) {
        EC.Kind = C.u32();
        EC.TryOffset = C.u32();
        EC.TryLength = C.u32();
        EC.HandlerOffset = C.u32();
        EC.HandlerLength = C.u32();
      } else {
        EC.Kind = C.u16();
        EC.TryOffset = C.u16();
        EC.TryLength = C.u8();
        EC.HandlerOffset = C.u16();
        EC.HandlerLength = C.u8();
      }
      EC.ClassTokenOrFilterOffset = C.u32();
      B.Clauses.push_back(EC);
    }
    if (Error E = C.takeError("exception section"))
      return std::move(E);
  }
  B.TotalSize = R.pos();
  return B;
}

bool InstructionDecoder::next(Instruction &I) {
  if (atEnd())
    return false;
  size_t Start = R.pos();
  I.Offset = uint32_t(Start);
  I.Int = 0;
  uint8_t B = R.u8();
  std::optional<Opcode> Op;
  if (B == 0xFE) {
    uint8_t B2 = R.u8();
    if (!R.ok()) {
      Detail = "truncated two-byte opcode at IL_" + hexstr(Start, true, 4);
      R.failAt(Start, "truncated opcode");
      return false;
    }
    Op = twoByteOpcode(B2);
    if (!Op) {
      Detail = "unknown opcode 0xFE 0x" + hexstr(B2, false, 2) + " at IL_" + hexstr(Start, true, 4);
      R.failAt(Start, "unknown opcode");
      return false;
    }
  } else {
    Op = oneByteOpcode(B);
    if (!Op) {
      Detail = "unknown opcode 0x" + hexstr(B, false, 2) + " at IL_" + hexstr(Start, true, 4);
      R.failAt(Start, "unknown opcode");
      return false;
    }
  }
  I.Op = *Op;
  const OpcodeInfo &Info = il::info(I.Op);
  switch (Info.Operand) {
  case OperandKind::None: break;
  case OperandKind::ShortVar: I.Index = R.u8(); break;
  case OperandKind::Var: I.Index = R.u16(); break;
  case OperandKind::ShortI: I.Int = R.i8(); break;
  case OperandKind::ShortU: I.Int = R.u8(); break;
  case OperandKind::I: I.Int = R.i32(); break;
  case OperandKind::I8: I.Int = R.i64(); break;
  case OperandKind::ShortR: I.Real = R.f32(); break;
  case OperandKind::R: I.Real = R.f64(); break;
  case OperandKind::ShortBr: {
    int8_t D = R.i8();
    I.Target = uint32_t(int64_t(R.pos()) + D);
    break;
  }
  case OperandKind::Br: {
    int32_t D = R.i32();
    I.Target = uint32_t(int64_t(R.pos()) + D);
    break;
  }
  case OperandKind::Switch: {
    I.Count = R.u32();
    if (R.ok() && uint64_t(I.Count) * 4 > R.remaining()) {
      Detail = "switch at IL_" + hexstr(Start, true, 4) + " has " + Twine(I.Count).str() +
               " targets, more than the code holds";
      R.failAt(Start, "truncated switch");
      return false;
    }
    R.skip(size_t(I.Count) * 4);
    break;
  }
  default: I.Token = R.u32(); break;
  }
  if (!R.ok()) {
    if (Detail.empty())
      Detail =
          std::string("truncated operand of ") + Info.Name + " at IL_" + hexstr(Start, true, 4);
    return false;
  }
  I.Size = uint32_t(R.pos() - Start);
  return true;
}

uint32_t InstructionDecoder::switchTarget(const Instruction &I, uint32_t Case) const {
  size_t TableStart = I.Offset + 1 + 4;
  int32_t D = int32_t(support::endian::read32le(R.data().data() + TableStart + Case * 4));
  return uint32_t(int64_t(I.next()) + D);
}

Error InstructionDecoder::takeError() {
  if (R.ok())
    return Error::success();
  return formatError("IL code", R.failureOffset(), Detail.empty() ? R.failure() : Detail);
}

Error decodeInstructions(ArrayRef<uint8_t> Code, uint64_t CodeFileOffset,
                         std::vector<Instruction> &Out) {
  Out.clear();
  InstructionDecoder D(Code, CodeFileOffset);
  Instruction I;
  while (D.next(I))
    Out.push_back(I);
  return D.takeError();
}

Expected<std::optional<RawMethodBody>> readMethodDefBody(const pe::Image &Img,
                                                         const metadata::Module &M, uint32_t Row) {
  using namespace metadata;
  uint32_t RVA = M.get(TableId::MethodDef, Row, MethodDefCol::RVA);
  if (!RVA || (M.get(TableId::MethodDef, Row, MethodDefCol::ImplFlags) & 3))
    return std::nullopt;
  Token Method = makeToken(TableId::MethodDef, Row);
  uint64_t Off = 0;
  ArrayRef<uint8_t> Tail = Img.rvaTail(RVA, &Off);
  if (Tail.empty())
    return formatError("method body", M.rowOffset(TableId::MethodDef, Row, MethodDefCol::RVA),
                       "method " + hex(Method, 8) + ": RVA " + hex(RVA, 8) +
                           " is not inside any section's data");
  Expected<RawMethodBody> Raw = readMethodBody(Tail, Off);
  if (!Raw)
    return addContext(Raw.takeError(), "method " + hex(Method, 8));
  return std::move(*Raw);
}

} // namespace weft::il
