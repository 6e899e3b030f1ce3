//===- weaver/passes/Returns.cpp - One way out of a method ----------------===//
#include "weaver/passes/Returns.h"

#include "weaver/passes/Emit.h"

#include "llvm/ADT/DenseMap.h"

using namespace weft::metadata;

namespace weft::passes {

std::vector<bool> protectedPositions(const il::MethodBody &B) {
  const std::vector<il::Instr *> &Order = B.instructions();
  std::vector<bool> Out(Order.size(), false);
  if (B.Regions.empty())
    return Out;
  llvm::DenseMap<const il::Instr *, size_t> Pos;
  for (size_t I = 0; I < Order.size(); ++I)
    Pos[Order[I]] = I;
  auto At = [&](const il::Instr *I) {
    auto It = Pos.find(I);
    return I && It != Pos.end() ? It->second : Order.size();
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
  llvm::DenseMap<const il::Instr *, size_t> Pos;
  for (size_t I = 0; I < Order.size(); ++I)
    Pos[Order[I]] = I;
  auto Before = [&](const il::Instr *T) { return T && Pos.lookup(T) < Split; };
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
  }
  if (Split >= Order.size()) {
    WhyNot = "nothing follows the base constructor call";
    return std::nullopt;
  }
  return Split;
}

SingleExit makeSingleExit(MethodContext &C, bool AlwaysLeave) {
  il::MethodBody &B = C.body();
  std::vector<il::Instr *> Rets, After;
  std::vector<bool> Inside = protectedPositions(B);
  std::vector<bool> RetInside;
  const std::vector<il::Instr *> &Order = B.instructions();
  for (size_t I = 0; I < Order.size(); ++I)
    if (Order[I]->Op == il::Opcode::Ret) {
      Rets.push_back(Order[I]);
      After.push_back(I + 1 < Order.size() ? Order[I + 1] : nullptr);
      RetInside.push_back(Inside[I]);
    }
  SingleExit Out;
  if (Rets.empty())
    return Out;
  // Modifiers are left off the local (init-only setters return `void modreq(IsExternalInit)`).
  const TypeSig &Return = C.signature().Return.stripped();
  if (Return.Kind != ElementType::Void) {
    std::vector<uint8_t> Type;
    encodeTypeSig(Return, Type);
    Out.ValueLocal = C.addLocal(Type);
  }
  // Regions that reached the end of the code end where the epilogue begins.
  std::vector<il::Instr **> OpenEnds;
  for (il::ExceptionRegion &R : B.Regions) {
    if (!R.TryEnd)
      OpenEnds.push_back(&R.TryEnd);
    if (!R.HandlerEnd)
      OpenEnds.push_back(&R.HandlerEnd);
  }
  Emitter End(B, nullptr);
  Out.Epilogue = Out.ValueLocal ? End.ldloc(*Out.ValueLocal) : End.op(il::Opcode::Ret);
  if (Out.ValueLocal)
    End.op(il::Opcode::Ret);
  for (il::Instr **E : OpenEnds)
    *E = Out.Epilogue;
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
  return Out;
}

} // namespace weft::passes
