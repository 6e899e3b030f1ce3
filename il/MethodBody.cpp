//===- il/MethodBody.cpp - An editable method body ------------------------===//
#include "il/MethodBody.h"

#include <atomic>

#include "support/Error.h"
#include "support/Format.h"

#include "llvm/Support/Endian.h"

#include <algorithm>
#include <atomic>
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

  // The instructions straight into their pool; it may grow while they are read, and pointers
  // into it are taken only once it is complete.
  std::vector<Instr> &Decoded = B.Decoded;
  Decoded.reserve(Raw.Code.size() / 2 + 4); // IL averages more than two bytes an instruction
  std::vector<uint32_t> Cases; // switch targets: (index of the switch's first case in Cases)
  InstructionDecoder D(Raw.Code, Raw.codeFileOffset());
  Instruction In;
  while (D.next(In)) {
    Instr &Out = Decoded.emplace_back();
    Out.Op = In.Op;
    Out.OriginalOffset = In.Offset;
    Out.Offset = In.Offset;
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
    case OperandKind::Br: Out.Token = In.Target; break; // resolved below
    case OperandKind::Switch:
      Out.Token = uint32_t(Cases.size());
      Out.Index = In.Count;
      for (uint32_t C = 0; C < In.Count; ++C)
        Cases.push_back(D.switchTarget(In, C));
      break;
    default: Out.Token = In.Token; break;
    }
  }
  if (Error E = D.takeError())
    return std::move(E);

  B.Order.reserve(Decoded.size() + 16); // room for what a pass adds
  for (Instr &I : Decoded)
    B.Order.push_back(&I);
  auto At = [&](uint32_t Offset) -> Instr * {
    auto It = std::partition_point(Decoded.begin(), Decoded.end(),
                                   [&](const Instr &X) { return X.OriginalOffset < Offset; });
    return It != Decoded.end() && It->OriginalOffset == Offset ? &*It : nullptr;
  };
  auto Fail = [&](uint64_t Offset, const Twine &Why) {
    return formatError("IL code", Raw.codeFileOffset() + Offset, Why);
  };
  for (Instr &Out : Decoded) {
    OperandKind K = Out.info().Operand;
    if (K == OperandKind::ShortBr || K == OperandKind::Br) {
      uint32_t To = Out.Token;
      Out.Token = 0;
      Out.Target = At(To);
      if (!Out.Target)
        return Fail(Out.OriginalOffset, "IL_" + hexstr(Out.OriginalOffset, true, 4) + " (" +
                                            Out.info().Name + ") branches to " + hex(To) +
                                            ", which is not the start of an instruction");
    } else if (K == OperandKind::Switch) {
      uint32_t First = Out.Token, Count = Out.Index;
      Out.Token = Out.Index = 0;
      Out.Targets.reserve(Count);
      for (uint32_t C = 0; C < Count; ++C) {
        Instr *Target = At(Cases[First + C]);
        if (!Target)
          return Fail(Out.OriginalOffset, "IL_" + hexstr(Out.OriginalOffset, true, 4) +
                                              " (switch) case " + Twine(C) + " goes to " +
                                              hex(Cases[First + C]) +
                                              ", which is not the start of an instruction");
        Out.Targets.push_back(Target);
      }
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

void MethodBody::reserveAdded(size_t N) {
  if (LastChunkSize - LastChunkUsed >= N)
    return;
  LastChunkSize = uint32_t(std::max<size_t>(N, LastChunkSize ? LastChunkSize * 2 : 16));
  AddedChunks.push_back(std::make_unique<Instr[]>(LastChunkSize));
  LastChunkUsed = 0;
}

Instr *MethodBody::create(Opcode Op) {
  if (LastChunkUsed == LastChunkSize)
    reserveAdded(1);
  Instr *I = &AddedChunks.back()[LastChunkUsed++];
  I->Op = Op;
  return I;
}

uint32_t MethodBody::number() const {
  // Unique across bodies, so an instruction of another body never passes for one of this one.
  // Each thread takes stamps from a block of its own, so threads do not share a counter's cache
  // line for every body.
  constexpr uint32_t Block = 1 << 16;
  static std::atomic<uint32_t> NextBlock{0};
  thread_local uint32_t Next = 0, Last = 0;
  if (Next == Last) {
    Next = NextBlock.fetch_add(Block, std::memory_order_relaxed);
    if (!Next) // 0 is what new instructions hold (and the counter wrapped)
      Next = NextBlock.fetch_add(Block, std::memory_order_relaxed);
    Last = Next + Block;
  }
  uint32_t Stamp = Next++;
  for (uint32_t K = 0; K < Order.size(); ++K) {
    Order[K]->Pos = K;
    Order[K]->Stamp = Stamp;
  }
  return Stamp;
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
  // Code is mostly placed in runs before one position, which the last insertion found.
  size_t At = !Position                                                     ? Order.size()
              : InsertHint < Order.size() && Order[InsertHint] == Position ? InsertHint
                                                                            : indexOf(Position);
  insertAt(At, I);
  InsertHint = At + 1;
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
