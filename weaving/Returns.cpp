//===- weaving/Returns.cpp - The ways out of a method ---------------------===//
#include "weaving/Returns.h"

#include "il/Prefixes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

using namespace weft::metadata;

namespace weft::passes {

std::vector<bool> protectedPositions(const il::MethodBody &B) {
  const std::vector<il::Instr *> &Order = B.instructions();
  std::vector<bool> Out(Order.size(), false);
  if (B.Regions.empty())
    return Out;
  uint32_t Stamp = B.number();
  auto At = [&](const il::Instr *I) {
    return il::MethodBody::numbered(I, Stamp) ? size_t(I->Pos) : Order.size();
  };
  auto Mark = [&](size_t From, size_t To) {
    for (size_t I = From; I < To && I < Out.size(); ++I)
      Out[I] = true;
  };
  for (const il::ExceptionRegion &R : B.Regions) {
    Mark(At(R.TryStart), At(R.TryEnd));
    Mark(At(R.FilterStart ? R.FilterStart : R.HandlerStart), At(R.HandlerEnd));
  }
  return Out;
}

namespace {

/// The position of the `call` to the base class's (or this class's) constructor.
std::optional<size_t> baseConstructorCall(MethodContext &C) {
  const Module &M = C.module();
  uint32_t Type = C.declaringType();
  Token Own = makeToken(TableId::TypeDef, Type);
  Token Base = M.getToken(TableId::TypeDef, Type, TypeDefCol::Extends);
  auto Plain = [&](Token T) -> Token {
    if (tokenTable(T) != TableId::TypeSpec || !M.isValidToken(T))
      return T;
    llvm::Expected<TypeSig> S = typeSpecSig(M, tokenRow(T));
    if (!S) {
      llvm::consumeError(S.takeError());
      return T;
    }
    return S->Kind == ElementType::GenericInst ? S->Args[0].TypeToken : T;
  };
  const std::vector<il::Instr *> &Order = C.body().instructions();
  for (size_t I = 0; I < Order.size(); ++I) {
    const il::Instr *In = Order[I];
    if (In->Op != il::Opcode::Call || !M.isValidToken(In->Token))
      continue;
    Token Parent = 0;
    llvm::StringRef Name;
    if (tokenTable(In->Token) == TableId::MethodDef) {
      Name = M.getString(M.get(TableId::MethodDef, tokenRow(In->Token), MethodDefCol::Name));
      Parent = makeToken(TableId::TypeDef, M.declaringTypeOfMethod(tokenRow(In->Token)));
    } else if (tokenTable(In->Token) == TableId::MemberRef) {
      Name = M.getString(M.get(TableId::MemberRef, tokenRow(In->Token), MemberRefCol::Name));
      Parent = M.getToken(TableId::MemberRef, tokenRow(In->Token), MemberRefCol::Class);
    }
    if (Name != ".ctor")
      continue;
    Parent = Plain(Parent);
    if (Parent == Own || (Base && Parent == Plain(Base)))
      return I;
  }
  return std::nullopt;
}

/// Whether no branch or region crosses between [0, Split) and [Split, end).
bool splitIsClean(const il::MethodBody &B, size_t Split) {
  const std::vector<il::Instr *> &Order = B.instructions();
  uint32_t Stamp = B.number();
  auto Before = [&](const il::Instr *T) {
    return il::MethodBody::numbered(T, Stamp) && T->Pos < Split;
  };
  for (size_t I = 0; I < Order.size(); ++I) {
    const il::Instr *In = Order[I];
    bool Here = I < Split;
    if (In->Target && Before(In->Target) != Here)
      return false;
    for (const il::Instr *T : In->Targets)
      if (Before(T) != Here)
        return false;
    if (Here && In->Op == il::Opcode::Ret)
      return false;
  }
  for (const il::ExceptionRegion &R : B.Regions)
    if (Before(R.TryStart))
      return false;
  return true;
}

} // namespace

std::optional<size_t> wrapStart(MethodContext &C, std::string &WhyNot) {
  const std::vector<il::Instr *> &Order = C.body().instructions();
  for (il::Instr *I : Order)
    if (I->Op == il::Opcode::Jmp) {
      WhyNot = "it ends with jmp, which cannot leave a try block";
      return std::nullopt;
    }
  size_t Split = 0;
  llvm::StringRef Name =
      C.module().getString(C.module().get(TableId::MethodDef, C.row(), MethodDefCol::Name));
  bool Object = !C.module().getToken(TableId::TypeDef, C.declaringType(), TypeDefCol::Extends);
  if (!C.isStatic() && Name == ".ctor" && !C.declaringTypeIsValueType() && !Object) {
    std::optional<size_t> Call = baseConstructorCall(C);
    if (!Call) {
      WhyNot = "no base constructor call found";
      return std::nullopt;
    }
    Split = *Call + 1;
    if (!splitIsClean(C.body(), Split)) {
      WhyNot = "control flow crosses the base constructor call";
      return std::nullopt;
    }
    for (const il::TailCallSite &T : il::tailCallSites(Order))
      if (T.First < Split) {
        WhyNot = "a tail call comes before the base constructor call";
        return std::nullopt;
      }
  }
  if (Split >= Order.size()) {
    WhyNot = "nothing follows the base constructor call";
    return std::nullopt;
  }
  return Split;
}

std::vector<TailCall> tailCalls(il::MethodBody &B) {
  std::vector<il::Instr *> &Order = B.instructions();
  std::vector<TailCall> Out;
  for (const il::TailCallSite &S : il::tailCallSites(Order))
    Out.push_back({Order[S.First], Order[S.Call], Order[S.Ret]});
  if (Out.empty())
    return Out;
  llvm::DenseSet<const il::Instr *> Targeted;
  for (const il::Instr *I : Order) {
    if (I->Target)
      Targeted.insert(I->Target);
    for (const il::Instr *T : I->Targets)
      Targeted.insert(T);
  }
  for (TailCall &T : Out) {
    if (!Targeted.count(T.Ret))
      continue;
    il::Instr *Own = B.create(il::Opcode::Ret);
    for (il::Instr *I : Order) {
      if (I->Target == T.Ret)
        I->Target = Own;
      for (il::Instr *&X : I->Targets)
        if (X == T.Ret)
          X = Own;
    }
    B.insertAt(B.indexOf(T.Ret) + 1, Own);
  }
  return Out;
}

void beforeTailCalls(il::MethodBody &B, llvm::ArrayRef<TailCall> Calls,
                     llvm::function_ref<void(Emitter &)> Emit) {
  for (const TailCall &T : Calls) {
    Emitter E(B, T.First);
    Emit(E);
    if (E.first())
      B.retarget(T.First, E.first());
  }
}

void beforeEachExit(il::MethodBody &B, llvm::function_ref<void(Emitter &, bool)> Emit) {
  std::vector<TailCall> Calls = tailCalls(B);
  llvm::DenseSet<const il::Instr *> TailRets;
  for (const TailCall &T : Calls)
    TailRets.insert(T.Ret);
  std::vector<il::Instr *> Rets;
  for (il::Instr *I : B.instructions())
    if (I->Op == il::Opcode::Ret && !TailRets.count(I))
      Rets.push_back(I);
  for (il::Instr *Ret : Rets) {
    Emitter E(B, Ret);
    Emit(E, false);
    if (E.first())
      B.retarget(Ret, E.first());
  }
  beforeTailCalls(B, Calls, [&](Emitter &E) { Emit(E, true); });
}

namespace {

/// Makes the epilogue (`ldloc value; ret`, or `ret`) at the end and sends each of \p Rets to it:
/// `stloc value; br` (`leave` inside a protected region, or everywhere with \p AlwaysLeave).
void sendRetsToEpilogue(MethodContext &C, const std::vector<il::Instr *> &Rets,
                        const std::vector<il::Instr *> &After, const std::vector<bool> &RetInside,
                        bool AlwaysLeave, SingleExit &Out) {
  il::MethodBody &B = C.body();
  // Modifiers are left off the local (init-only setters return `void modreq(IsExternalInit)`).
  const TypeSig &Return = C.returnType().stripped();
  if (Return.Kind != ElementType::Void) {
    std::vector<uint8_t> Type;
    encodeTypeSig(Return, Type);
    Out.ValueLocal = C.addLocal(Type);
  }
  Emitter End(B, nullptr);
  Out.Epilogue = Out.ValueLocal ? End.ldloc(*Out.ValueLocal) : End.op(il::Opcode::Ret);
  if (Out.ValueLocal)
    End.op(il::Opcode::Ret);
  for (size_t K = 0; K < Rets.size(); ++K) {
    il::Opcode Jump = AlwaysLeave || RetInside[K] ? il::Opcode::Leave_S : il::Opcode::Br_S;
    il::Instr *Ret = Rets[K];
    if (Out.ValueLocal) {
      rewriteAsStloc(Ret, *Out.ValueLocal);
      Emitter(B, After[K] ? After[K] : Out.Epilogue).branch(Jump, Out.Epilogue);
    } else {
      Ret->Op = Jump;
      Ret->Target = Out.Epilogue;
    }
  }
}

/// The token of the constrained. prefix among a tail call's prefixes, or 0.
Token constrainedType(const il::MethodBody &B, const TailCall &T) {
  const std::vector<il::Instr *> &Order = B.instructions();
  for (size_t I = B.indexOf(T.First); I < Order.size() && Order[I] != T.Call; ++I)
    if (Order[I]->Op == il::Opcode::Constrained)
      return Order[I]->Token;
  return 0;
}

/// Moves one tail call out to a stub at the end of the code: its arguments are stored in new
/// locals and a `leave` goes to the stub, which runs \p StubExit's code, loads them and makes the
/// call. Returns the stub's first instruction.
il::Instr *moveOut(MethodContext &C, const TailCall &T, llvm::ArrayRef<TypeSig> Operands,
                   llvm::function_ref<void(Emitter &)> StubExit) {
  il::MethodBody &B = C.body();
  std::vector<uint32_t> Locals;
  for (const TypeSig &Ty : Operands) {
    std::vector<uint8_t> Sig;
    encodeTypeSig(Ty, Sig);
    Locals.push_back(C.addLocal(Sig));
  }
  Emitter Site(B, T.First);
  for (size_t K = Locals.size(); K-- > 0;)
    Site.stloc(Locals[K]);
  il::Instr *Leave = Site.branch(il::Opcode::Leave, nullptr);

  // The prefixes, the call and the ret leave their place; what branched there reaches the stores.
  std::vector<il::Instr *> &Order = B.instructions();
  size_t From = B.indexOf(T.First), To = B.indexOf(T.Ret) + 1;
  std::vector<il::Instr *> Moved(Order.begin() + From, Order.begin() + To);
  Order.erase(Order.begin() + From, Order.begin() + To);
  B.retarget(T.First, Site.first());

  Emitter Stub(B, nullptr);
  if (StubExit)
    StubExit(Stub);
  for (uint32_t L : Locals)
    Stub.ldloc(L);
  for (il::Instr *I : Moved)
    B.insertBefore(nullptr, I);
  Leave->Target = Stub.first() ? Stub.first() : Moved.front();
  return Leave->Target;
}

} // namespace

llvm::Expected<SingleExit> makeSingleExit(MethodContext &C, bool Wrap,
                                          llvm::function_ref<void(Emitter &)> StubExit) {
  il::MethodBody &B = C.body();
  // The handler goes after the body. Code at the end of a body that verifies can only fall
  // through if it is unreachable, but even so it would fall into the handler, and control may
  // never fall into a handler (ECMA-335 I.12.4.2.8.1), reachable or not.
  if (Wrap && !B.instructions().empty()) {
    switch (B.instructions().back()->info().Flow) {
    case il::FlowKind::Branch:
    case il::FlowKind::Return:
    case il::FlowKind::Throw: break;
    default:
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "its last instruction is unreachable code that falls "
                                     "through, into the handler that would follow it");
    }
  }
  std::vector<TailCall> Calls = tailCalls(B);
  // The tail calls' operand types first, so that nothing changes if one cannot be known.
  std::vector<std::vector<TypeSig>> Operands;
  if (Wrap)
    for (const TailCall &T : Calls) {
      llvm::Expected<std::vector<TypeSig>> Types =
          C.callOperandTypes(*T.Call, constrainedType(B, T));
      if (!Types)
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       "the arguments of a tail call cannot be held in locals: " +
                                           toString(Types.takeError()));
      Operands.push_back(std::move(*Types));
    }
  llvm::DenseSet<const il::Instr *> TailRets;
  for (const TailCall &T : Calls)
    TailRets.insert(T.Ret);

  std::vector<il::Instr *> Rets, After;
  std::vector<bool> Inside = protectedPositions(B);
  std::vector<bool> RetInside;
  const std::vector<il::Instr *> &Order = B.instructions();
  for (size_t I = 0; I < Order.size(); ++I)
    if (Order[I]->Op == il::Opcode::Ret && !TailRets.count(Order[I])) {
      Rets.push_back(Order[I]);
      After.push_back(I + 1 < Order.size() ? Order[I + 1] : nullptr);
      RetInside.push_back(Inside[I]);
    }
  SingleExit Out;
  // Regions that reached the end of the code end where the added code begins.
  std::vector<il::Instr **> OpenEnds;
  for (il::ExceptionRegion &R : B.Regions) {
    if (!R.TryEnd)
      OpenEnds.push_back(&R.TryEnd);
    if (!R.HandlerEnd)
      OpenEnds.push_back(&R.HandlerEnd);
  }
  if (!Rets.empty())
    sendRetsToEpilogue(C, Rets, After, RetInside, Wrap, Out);
  il::Instr *FirstStub = nullptr;
  if (Wrap)
    for (size_t K = 0; K < Calls.size(); ++K) {
      il::Instr *Stub = moveOut(C, Calls[K], Operands[K], StubExit);
      if (!FirstStub)
        FirstStub = Stub;
    }
  Out.End = Out.Epilogue ? Out.Epilogue : FirstStub;
  for (il::Instr **E : OpenEnds)
    *E = Out.End;
  return Out;
}

size_t protectBody(il::MethodBody &B, il::Instr *TryFirst, il::Instr *HandlerFirst,
                   il::Instr *End, il::RegionKind Kind, uint32_t CatchType) {
  for (il::ExceptionRegion &R : B.Regions) {
    if (!R.TryEnd || R.TryEnd == End)
      R.TryEnd = HandlerFirst;
    if (!R.HandlerEnd || R.HandlerEnd == End)
      R.HandlerEnd = HandlerFirst;
  }
  il::ExceptionRegion R;
  R.Kind = Kind;
  R.TryStart = TryFirst;
  R.TryEnd = R.HandlerStart = HandlerFirst;
  R.HandlerEnd = End;
  R.CatchType = CatchType;
  B.Regions.push_back(R);
  return B.Regions.size() - 1;
}

} // namespace weft::passes
