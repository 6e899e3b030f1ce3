//===- weaving/CallOperands.cpp - What a call takes from the stack --------===//
#include "weaving/CallOperands.h"

#include "support/Format.h"

using namespace llvm;
using namespace weft::metadata;

namespace weft::passes {

namespace {

Error fail(const Twine &Why) { return createStringError(inconvertibleErrorCode(), Why); }

/// \p T with the generic arguments put in and custom modifiers and `pinned` left out, at every
/// level.
Expected<TypeSig> localType(const TypeSig &T0, ArrayRef<TypeSig> TypeArgs,
                            ArrayRef<TypeSig> MethodArgs, unsigned Depth = 0) {
  if (Depth > 64)
    return fail("a signature nests too deeply");
  const TypeSig &T = T0.stripped();
  if (T.Kind == ElementType::Var || T.Kind == ElementType::MVar) {
    ArrayRef<TypeSig> Args = T.Kind == ElementType::Var ? TypeArgs : MethodArgs;
    if (T.Number >= Args.size())
      return fail(Twine(T.Kind == ElementType::Var ? "!" : "!!") + Twine(T.Number) +
                  " of the callee's signature has no generic argument");
    return localType(Args[T.Number], {}, {}, Depth + 1);
  }
  TypeSig Out = T;
  for (TypeSig &A : Out.Args) {
    Expected<TypeSig> L = localType(A, TypeArgs, MethodArgs, Depth + 1);
    if (!L)
      return L.takeError();
    A = std::move(*L);
  }
  return Out;
}

TypeSig byRef(TypeSig T) {
  TypeSig R(ElementType::ByRef);
  R.Args.push_back(std::move(T));
  return R;
}

class Reader {
public:
  explicit Reader(const SignatureFacts &F) : F(F) {}

  /// A type token as a type signature: a TypeSpec's own, or a class or value type node.
  Expected<TypeSig> typeOf(Token T) {
    switch (tokenTable(T)) {
    case TableId::TypeSpec:
      return decodeTypeSpec(F.Blob(F.Cell(TableId::TypeSpec, tokenRow(T), 0)), 0);
    case TableId::TypeDef:
    case TableId::TypeRef: {
      std::optional<bool> Value = F.IsValueType(T);
      if (!Value)
        return fail("whether " + hex(T) +
                    " is a value type is not known (its assembly was not "
                    "found)");
      TypeSig S(*Value ? ElementType::ValueType : ElementType::Class);
      S.TypeToken = T;
      return S;
    }
    default: return fail("token " + hex(T) + " names no type");
    }
  }

  /// The callee of a call or callvirt: its signature, declaring type and instantiation.
  struct Callee {
    MethodSig Sig;
    Token Parent = 0;
    std::vector<TypeSig> MethodArgs;
  };

  Expected<Callee> callee(Token T) {
    Callee C;
    if (tokenTable(T) == TableId::MethodSpec) {
      uint32_t Row = tokenRow(T);
      Expected<std::vector<TypeSig>> Args = decodeMethodSpec(
          F.Blob(F.Cell(TableId::MethodSpec, Row, MethodSpecCol::Instantiation)), 0);
      if (!Args)
        return Args.takeError();
      C.MethodArgs = std::move(*Args);
      T = F.Cell(TableId::MethodSpec, Row, MethodSpecCol::Method);
    }
    uint32_t Blob = 0;
    if (tokenTable(T) == TableId::MethodDef) {
      Blob = F.Cell(TableId::MethodDef, tokenRow(T), MethodDefCol::Signature);
      if (uint32_t Type = F.DeclaringType(tokenRow(T)))
        C.Parent = makeToken(TableId::TypeDef, Type);
    } else if (tokenTable(T) == TableId::MemberRef) {
      Blob = F.Cell(TableId::MemberRef, tokenRow(T), MemberRefCol::Signature);
      C.Parent = F.Cell(TableId::MemberRef, tokenRow(T), MemberRefCol::Class);
    } else {
      return fail("token " + hex(T) + " names no method");
    }
    Expected<MethodSig> S = decodeMethodSig(F.Blob(Blob), 0);
    if (!S)
      return S.takeError();
    C.Sig = std::move(*S);
    return C;
  }

private:
  const SignatureFacts &F;
};

/// The type of `this` for a call of a method of \p Parent.
Expected<TypeSig> thisType(Reader &R, const TypeSig &Parent, bool Virtual) {
  switch (Parent.Kind) {
  case ElementType::ValueType: return byRef(Parent);
  case ElementType::GenericInst:
    return Parent.Args[0].Kind == ElementType::ValueType ? byRef(Parent) : Parent;
  case ElementType::End:
    // Not known: a virtual call's receiver is an object reference all the same.
    if (Virtual)
      return TypeSig(ElementType::Object);
    return fail("the type of the call's instance is not known");
  default: return Parent;
  }
}

} // namespace

Expected<std::vector<TypeSig>> callOperandTypes(const SignatureFacts &Facts, const il::Instr &Call,
                                                Token Constrained) {
  Reader R(Facts);
  std::vector<TypeSig> Out;
  if (Call.Op == il::Opcode::Calli) {
    Expected<MethodSig> S =
        decodeMethodSig(Facts.Blob(Facts.Cell(TableId::StandAloneSig, tokenRow(Call.Token), 0)), 0);
    if (!S)
      return S.takeError();
    if (S->hasThis() || S->SentinelIndex >= 0 || S->kind() == SigVarArg)
      return fail("a calli with an instance or vararg signature");
    for (const TypeSig &P : S->Params) {
      Expected<TypeSig> L = localType(P, {}, {});
      if (!L)
        return L.takeError();
      Out.push_back(std::move(*L));
    }
    Out.push_back(TypeSig(ElementType::I)); // the function pointer
    return Out;
  }

  Expected<Reader::Callee> C = R.callee(Call.Token);
  if (!C)
    return C.takeError();
  if (C->Sig.kind() == SigVarArg || C->Sig.SentinelIndex >= 0)
    return fail("a vararg call");
  TypeSig Parent; // Kind End: not known
  if (C->Parent &&
      (tokenTable(C->Parent) == TableId::TypeDef || tokenTable(C->Parent) == TableId::TypeRef ||
       tokenTable(C->Parent) == TableId::TypeSpec)) {
    Expected<TypeSig> P = R.typeOf(C->Parent);
    if (P)
      Parent = std::move(*P);
    else if (tokenTable(C->Parent) == TableId::TypeSpec)
      return P.takeError();
    else
      consumeError(P.takeError()); // a reference type will do for callvirt
  }
  ArrayRef<TypeSig> TypeArgs;
  if (Parent.Kind == ElementType::GenericInst)
    TypeArgs = ArrayRef<TypeSig>(Parent.Args).drop_front();

  // newobj makes its instance itself: it takes only the parameters.
  if (C->Sig.hasThis() && !C->Sig.explicitThis() && Call.Op != il::Opcode::Newobj) {
    Expected<TypeSig> This = [&]() -> Expected<TypeSig> {
      if (!Constrained)
        return thisType(R, Parent, Call.Op == il::Opcode::Callvirt);
      Expected<TypeSig> T = R.typeOf(Constrained);
      if (!T)
        return T.takeError();
      return byRef(std::move(*T));
    }();
    if (!This)
      return This.takeError();
    Out.push_back(std::move(*This));
  }
  for (const TypeSig &P : C->Sig.Params) {
    Expected<TypeSig> L = localType(P, TypeArgs, C->MethodArgs);
    if (!L)
      return L.takeError();
    Out.push_back(std::move(*L));
  }
  return Out;
}

} // namespace weft::passes
