//===- il/Encoder.cpp - Method bodies back to bytes -----------------------===//
#include "il/Encoder.h"

#include "il/StackDepth.h"
#include "metadata/Schema.h"
#include "support/Error.h"
#include "support/Format.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Endian.h"

#include <algorithm>

using namespace llvm;

namespace weft::il {

EncodeOptions EncodeOptions::forMethod(const CallShapeSource &Shapes, uint32_t Row) {
  EncodeOptions O;
  O.Shapes = &Shapes;
  std::optional<CallShape> Own =
      Shapes.shapeOf(metadata::makeToken(metadata::TableId::MethodDef, Row));
  O.ReturnsValue = Own && Own->ReturnsValue;
  return O;
}

namespace {

// The long form of a short-operand instruction whose operand does not fit.
Opcode widened(Opcode Op) {
  switch (Op) {
  case Opcode::Ldarg_S: return Opcode::Ldarg;
  case Opcode::Ldarga_S: return Opcode::Ldarga;
  case Opcode::Starg_S: return Opcode::Starg;
  case Opcode::Ldloc_S: return Opcode::Ldloc;
  case Opcode::Ldloca_S: return Opcode::Ldloca;
  case Opcode::Stloc_S: return Opcode::Stloc;
  case Opcode::Ldc_I4_S: return Opcode::Ldc_I4;
  default: return Op;
  }
}

class Writer {
public:
  explicit Writer(std::vector<uint8_t> &Out) : Out(Out) {}
  void u8(uint8_t V) { Out.push_back(V); }
  void u16(uint16_t V) {
    u8(uint8_t(V));
    u8(uint8_t(V >> 8));
  }
  void u32(uint32_t V) {
    u16(uint16_t(V));
    u16(uint16_t(V >> 16));
  }
  void u64(uint64_t V) {
    u32(uint32_t(V));
    u32(uint32_t(V >> 32));
  }

private:
  std::vector<uint8_t> &Out;
};

} // namespace

Expected<EncodedBody> encode(MethodBody &Body, const EncodeOptions &Opts) {
  std::vector<Instr *> &Order = Body.instructions();
  uint32_t Stamp = Body.number();
  auto In = [&](const Instr *I) { return MethodBody::numbered(I, Stamp); };
  auto Where = [&](const Instr *I) {
    return I->OriginalOffset != NoOffset ? "IL_" + hexstr(I->OriginalOffset, true, 4)
                                         : std::string("a new instruction");
  };
  auto Bad = [&](const Instr *I, const Twine &Why) {
    return formatError("method body", 0, Where(I) + " (" + I->info().Name + "): " + Why);
  };

  // Operands that do not fit a short form take the long one; branches start in the form they
  // were read with (or short) and grow below. The first layout is made on the way, and the short
  // branches noted (the thread's own list, kept from body to body).
  thread_local std::vector<Instr *> Short;
  Short.clear();
  uint32_t CodeSize = 0;
  for (Instr *I : Order) {
    const OpcodeInfo &Info = I->info();
    if ((Info.Operand == OperandKind::ShortVar && I->Index > 0xFF) ||
        (I->Op == Opcode::Ldc_I4_S && (I->Int < -128 || I->Int > 127)))
      I->Op = widened(I->Op);
    if (Info.isBranch()) {
      if (!In(I->Target))
        return Bad(I, "its target is not in the body");
      if (!Opts.KeepBranchForms || I->OriginalOffset == NoOffset)
        I->Op = shortForm(I->Op);
      if (I->info().Operand == OperandKind::ShortBr)
        Short.push_back(I);
    }
    if (I->Op == Opcode::Switch)
      for (Instr *T : I->Targets)
        if (!In(T))
          return Bad(I, "a case's target is not in the body");
    I->Offset = CodeSize;
    CodeSize += encodedSize(*I);
  }
  for (const ExceptionRegion &R : Body.Regions) {
    for (const Instr *P : {R.TryStart, R.HandlerStart})
      if (!In(P))
        return formatError("method body", 0,
                           "an exception region starts at an instruction "
                           "that is not in the body");
    if (R.Kind == RegionKind::Filter && !In(R.FilterStart))
      return formatError("method body", 0, "a filter starts outside the body");
  }

  // Short branches that do not reach become long, and the code is laid out again, until every
  // one reaches.
  EncodedBody Result;
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (Instr *I : Short) {
      if (I->info().Operand != OperandKind::ShortBr)
        continue;
      int64_t Delta = int64_t(I->Target->Offset) - int64_t(I->Offset + encodedSize(*I));
      if (Delta < -128 || Delta > 127) {
        I->Op = longForm(I->Op);
        ++Result.BranchesLengthened;
        Changed = true;
      }
    }
    if (!Changed)
      break;
    CodeSize = 0;
    for (Instr *I : Order) {
      I->Offset = CodeSize;
      CodeSize += encodedSize(*I);
    }
  }
  auto OffsetOf = [&](const Instr *I) { return I ? I->Offset : CodeSize; };

  // Max-stack.
  uint16_t MaxStack = Body.MaxStack;
  if (Opts.Shapes) {
    thread_local analysis::StackInfo S; // its storage serves every body this thread encodes
    analysis::analyzeStack(Body, *Opts.Shapes, Opts.ReturnsValue, S, Stamp);
    uint32_t Computed = std::min<uint32_t>(S.MaxStack, 0xFFFF);
    MaxStack = Body.FromFile ? std::max<uint32_t>(Body.MaxStack, Computed) : Computed;
  }

  // Header.
  bool HasLocals = Body.LocalVarSigToken != 0;
  bool HasRegions = !Body.Regions.empty();
  bool Tiny = CodeSize < 64 && MaxStack <= 8 && !HasLocals && !HasRegions && !Body.InitLocals &&
              !(Body.FromFile && Body.WasFat);
  std::vector<uint8_t> &Bytes = Result.Bytes;
  uint32_t HeaderSize = Tiny ? 1 : 12;
  Bytes.reserve(HeaderSize + CodeSize + 4 + (HasRegions ? 4 + 24 * Body.Regions.size() : 0));
  Bytes.resize(HeaderSize + CodeSize);
  uint8_t *P = Bytes.data();
  auto U8 = [&](uint8_t V) { *P++ = V; };
  auto U16 = [&](uint16_t V) {
    support::endian::write16le(P, V);
    P += 2;
  };
  auto U32 = [&](uint32_t V) {
    support::endian::write32le(P, V);
    P += 4;
  };
  if (Tiny) {
    U8(uint8_t(CodeSize << 2 | 0x2));
  } else {
    uint16_t Flags = 0x3003; // fat, three dwords
    if (HasRegions)
      Flags |= 0x8;
    if (Body.InitLocals)
      Flags |= 0x10;
    U16(Flags);
    U16(MaxStack);
    U32(CodeSize);
    U32(Body.LocalVarSigToken);
  }

  // Code.
  for (Instr *I : Order) {
    const OpcodeInfo &Info = I->info();
    if (Info.Byte1 == 0xFE)
      U8(0xFE);
    U8(Info.Byte2);
    uint32_t End = I->Offset + encodedSize(*I);
    switch (Info.Operand) {
    case OperandKind::None: break;
    case OperandKind::ShortVar: U8(uint8_t(I->Index)); break;
    case OperandKind::Var:
      if (I->Index > 0xFFFF)
        return Bad(I, "index " + Twine(I->Index) + " does not fit in 16 bits");
      U16(uint16_t(I->Index));
      break;
    case OperandKind::ShortI: U8(uint8_t(int8_t(I->Int))); break;
    case OperandKind::ShortU:
      if (I->Int < 0 || I->Int > 0xFF)
        return Bad(I, "operand " + Twine(I->Int) + " does not fit in 8 bits");
      U8(uint8_t(I->Int));
      break;
    case OperandKind::I:
      if (I->Int < INT32_MIN || I->Int > INT32_MAX)
        return Bad(I, "operand " + Twine(I->Int) + " does not fit in 32 bits");
      U32(uint32_t(int32_t(I->Int)));
      break;
    case OperandKind::I8:
    case OperandKind::R:
      support::endian::write64le(P, uint64_t(I->Int));
      P += 8;
      break;
    case OperandKind::ShortR: U32(uint32_t(I->Int)); break;
    case OperandKind::ShortBr: U8(uint8_t(int8_t(int64_t(I->Target->Offset) - End))); break;
    case OperandKind::Br: U32(uint32_t(int32_t(int64_t(I->Target->Offset) - End))); break;
    case OperandKind::Switch:
      U32(uint32_t(I->Targets.size()));
      for (const Instr *T : I->Targets)
        U32(uint32_t(int32_t(int64_t(T->Offset) - End)));
      break;
    default: U32(I->Token); break;
    }
  }
  Writer W(Bytes);

  // Exception sections: one section, small when every clause fits (and the body did not have a
  // fat one), fat otherwise.
  if (HasRegions) {
    while (Bytes.size() % 4)
      W.u8(0);
    struct Clause {
      uint32_t Kind, TryOffset, TryLength, HandlerOffset, HandlerLength, Extra;
    };
    std::vector<Clause> Clauses;
    bool Small = !(Body.FromFile && Body.HadFatSections) && Body.Regions.size() <= 20;
    for (const ExceptionRegion &R : Body.Regions) {
      Clause C;
      C.Kind = R.Kind == RegionKind::Catch     ? ClauseException
               : R.Kind == RegionKind::Filter  ? ClauseFilter
               : R.Kind == RegionKind::Finally ? ClauseFinally
                                               : ClauseFault;
      C.TryOffset = OffsetOf(R.TryStart);
      C.TryLength = OffsetOf(R.TryEnd) - C.TryOffset;
      C.HandlerOffset = OffsetOf(R.HandlerStart);
      C.HandlerLength = OffsetOf(R.HandlerEnd) - C.HandlerOffset;
      if (OffsetOf(R.TryEnd) < C.TryOffset || OffsetOf(R.HandlerEnd) < C.HandlerOffset)
        return formatError("method body", 0, "an exception region ends before it starts");
      if (R.Kind == RegionKind::Filter) {
        C.Extra = R.FilterStart->Offset;
      } else {
        C.Extra = R.CatchType;
      }
      Small = Small && C.TryOffset <= 0xFFFF && C.TryLength <= 0xFF && C.HandlerOffset <= 0xFFFF &&
              C.HandlerLength <= 0xFF;
      Clauses.push_back(C);
    }
    if (Small) {
      W.u8(0x01); // EHTable
      W.u8(uint8_t(4 + 12 * Clauses.size()));
      W.u16(0);
      for (const Clause &C : Clauses) {
        W.u16(uint16_t(C.Kind));
        W.u16(uint16_t(C.TryOffset));
        W.u8(uint8_t(C.TryLength));
        W.u16(uint16_t(C.HandlerOffset));
        W.u8(uint8_t(C.HandlerLength));
        W.u32(C.Extra);
      }
    } else {
      uint32_t Size = 4 + 24 * uint32_t(Clauses.size());
      W.u8(0x41); // EHTable | FatFormat
      W.u8(uint8_t(Size));
      W.u8(uint8_t(Size >> 8));
      W.u8(uint8_t(Size >> 16));
      for (const Clause &C : Clauses) {
        W.u32(C.Kind);
        W.u32(C.TryOffset);
        W.u32(C.TryLength);
        W.u32(C.HandlerOffset);
        W.u32(C.HandlerLength);
        W.u32(C.Extra);
      }
    }
  }

  Result.CodeSize = CodeSize;
  Result.MaxStack = MaxStack;
  Result.Fat = !Tiny;
  if (!Opts.OffsetMap)
    return std::move(Result);
  Result.OffsetMap.reserve(Order.size() + 1);
  for (const Instr *I : Order)
    if (I->OriginalOffset != NoOffset)
      Result.OffsetMap.emplace_back(I->OriginalOffset, I->Offset);
  if (Body.FromFile)
    Result.OffsetMap.emplace_back(Body.OriginalCodeSize, CodeSize);
  if (!std::is_sorted(Result.OffsetMap.begin(), Result.OffsetMap.end()))
    std::sort(Result.OffsetMap.begin(), Result.OffsetMap.end());
  return std::move(Result);
}

} // namespace weft::il
