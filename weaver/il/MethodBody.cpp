//===- weaver/il/MethodBody.cpp - An editable method body -----------------===//
#include "weaver/il/MethodBody.h"

#include "support/Error.h"
#include "support/Format.h"

#include "llvm/Support/Endian.h"

#include <algorithm>
#include <cstring>

using namespace llvm;

namespace weft::il {

float Instr::float32() const {
  uint32_t Bits = uint32_t(Int);
  float F;
  std::memcpy(&F, &Bits, 4);
  return F;
}

double Instr::float64() const {
  uint64_t Bits = uint64_t(Int);
  double D;
  std::memcpy(&D, &Bits, 8);
  return D;
}

void Instr::setFloat32(float F) {
  uint32_t Bits;
  std::memcpy(&Bits, &F, 4);
  Int = Bits;
}

void Instr::setFloat64(double D) {
  uint64_t Bits;
  std::memcpy(&Bits, &D, 8);
  Int = int64_t(Bits);
}

Expected<MethodBody> MethodBody::decode(const RawMethodBody &Raw) {
  MethodBody B;
  B.MaxStack = Raw.MaxStack;
  B.InitLocals = Raw.initLocals();
  B.LocalVarSigToken = Raw.LocalVarSigToken;
  B.WasFat = Raw.Fat;
  B.HadFatSections = Raw.FatSections;
  B.FromFile = true;
  B.OriginalCodeSize = uint32_t(Raw.Code.size());

  std::vector<Instruction> Read;
  InstructionDecoder D(Raw.Code, Raw.codeFileOffset());
  Instruction I;
  while (D.next(I))
    Read.push_back(I);
  if (Error E = D.takeError())
    return std::move(E);

  B.Decoded.resize(Read.size());
  B.Order.reserve(Read.size());
  for (size_t K = 0; K < Read.size(); ++K) {
    Instr &Out = B.Decoded[K];
    Out.Op = Read[K].Op;
    Out.OriginalOffset = Read[K].Offset;
    Out.Offset = Read[K].Offset;
    B.Order.push_back(&Out);
  }
  auto At = [&](uint32_t Offset) -> Instr * {
    auto It = std::partition_point(Read.begin(), Read.end(),
                                   [&](const Instruction &X) { return X.Offset < Offset; });
    return It != Read.end() && It->Offset == Offset ? &B.Decoded[It - Read.begin()] : nullptr;
  };
  auto Fail = [&](uint64_t Offset, const Twine &Why) {
    return formatError("IL code", Raw.codeFileOffset() + Offset, Why);
  };
  for (size_t K = 0; K < Read.size(); ++K) {
    const Instruction &In = Read[K];
    Instr &Out = B.Decoded[K];
    switch (In.info().Operand) {
    case OperandKind::None: break;
    case OperandKind::ShortVar:
    case OperandKind::Var: Out.Index = In.Index; break;
    case OperandKind::ShortI:
    case OperandKind::ShortU:
    case OperandKind::I:
    case OperandKind::I8: Out.Int = In.Int; break;
    case OperandKind::ShortR:
    case OperandKind::R: {
      // The bits as stored, not the value: a NaN payload must survive.
      const uint8_t *P = Raw.Code.data() + In.Offset + In.info().opcodeSize();
      Out.Int = In.info().Operand == OperandKind::ShortR ? int64_t(support::endian::read32le(P))
                                                         : int64_t(support::endian::read64le(P));
      break;
    }
    case OperandKind::ShortBr:
    case OperandKind::Br:
      Out.Target = At(In.Target);
      if (!Out.Target)
        return Fail(In.Offset, "IL_" + hexstr(In.Offset, true, 4) + " (" + In.info().Name +
                                   ") branches to " + hex(In.Target) +
                                   ", which is not the start of an instruction");
      break;
    case OperandKind::Switch:
      Out.Targets.reserve(In.Count);
      for (uint32_t C = 0; C < In.Count; ++C) {
        uint32_t T = D.switchTarget(In, C);
        Instr *Target = At(T);
        if (!Target)
          return Fail(In.Offset, "IL_" + hexstr(In.Offset, true, 4) + " (switch) case " + Twine(C) +
                                     " goes to " + hex(T) +
                                     ", which is not the start of an instruction");
        Out.Targets.push_back(Target);
      }
      break;
    default: Out.Token = In.Token; break;
    }
  }

  uint32_t CodeSize = uint32_t(Raw.Code.size());
  for (size_t C = 0; C < Raw.Clauses.size(); ++C) {
    const ExceptionClause &E = Raw.Clauses[C];
    ExceptionRegion R;
    auto Boundary = [&](uint64_t Offset, Instr *&Out, bool MayBeEnd, const char *What) -> Error {
      if (MayBeEnd && Offset == CodeSize) {
        Out = nullptr;
        return Error::success();
      }
      Out = Offset <= 0xFFFFFFFF ? At(uint32_t(Offset)) : nullptr;
      if (!Out)
        return formatError("exception clause " + Twine(C), Raw.FileOffset,
                           Twine(What) + " at " + hex(Offset) + " is not an instruction boundary");
      return Error::success();
    };
    if (Error Err = Boundary(E.TryOffset, R.TryStart, false, "try start"))
      return std::move(Err);
    if (Error Err = Boundary(uint64_t(E.TryOffset) + E.TryLength, R.TryEnd, true, "try end"))
      return std::move(Err);
    if (Error Err = Boundary(E.HandlerOffset, R.HandlerStart, false, "handler start"))
      return std::move(Err);
    if (Error Err = Boundary(uint64_t(E.HandlerOffset) + E.HandlerLength, R.HandlerEnd, true,
                             "handler end"))
      return std::move(Err);
    switch (E.Kind) {
    case ClauseException:
      R.Kind = RegionKind::Catch;
      R.CatchType = E.ClassTokenOrFilterOffset;
      break;
    case ClauseFilter:
      R.Kind = RegionKind::Filter;
      if (Error Err = Boundary(E.ClassTokenOrFilterOffset, R.FilterStart, false, "filter start"))
        return std::move(Err);
      break;
    case ClauseFinally:
      R.Kind = RegionKind::Finally;
      R.CatchType = E.ClassTokenOrFilterOffset;
      break;
    case ClauseFault:
      R.Kind = RegionKind::Fault;
      R.CatchType = E.ClassTokenOrFilterOffset;
      break;
    default:
      return formatError("exception clause " + Twine(C), Raw.FileOffset,
                         "unknown clause kind " + hex(E.Kind));
    }
    B.Regions.push_back(R);
  }
  return std::move(B);
}

Instr *MethodBody::create(Opcode Op) {
  Added.emplace_back();
  Added.back().Op = Op;
  return &Added.back();
}

Instr *MethodBody::create(Opcode Op, int64_t Int) {
  Instr *I = create(Op);
  I->Int = Int;
  return I;
}

Instr *MethodBody::createToken(Opcode Op, uint32_t Token) {
  Instr *I = create(Op);
  I->Token = Token;
  return I;
}

Instr *MethodBody::createBranch(Opcode Op, Instr *Target) {
  Instr *I = create(Op);
  I->Target = Target;
  return I;
}

size_t MethodBody::indexOf(const Instr *I) const {
  auto It = std::find(Order.begin(), Order.end(), I);
  return It - Order.begin();
}

void MethodBody::insertBefore(Instr *Position, Instr *I) {
  insertAt(Position ? indexOf(Position) : Order.size(), I);
}

void MethodBody::insertAt(size_t Index, Instr *I) {
  Order.insert(Order.begin() + std::min(Index, Order.size()), I);
}

void MethodBody::retarget(Instr *From, Instr *To) {
  for (Instr *I : Order) {
    if (I->Target == From)
      I->Target = To;
    for (Instr *&T : I->Targets)
      if (T == From)
        T = To;
  }
  for (ExceptionRegion &R : Regions)
    for (Instr **P : {&R.TryStart, &R.TryEnd, &R.HandlerStart, &R.HandlerEnd, &R.FilterStart})
      if (*P == From)
        *P = To;
}

void MethodBody::remove(Instr *I) {
  size_t Index = indexOf(I);
  if (Index == Order.size())
    return;
  Instr *Next = Index + 1 < Order.size() ? Order[Index + 1] : nullptr;
  retarget(I, Next);
  Order.erase(Order.begin() + Index);
}

} // namespace weft::il
