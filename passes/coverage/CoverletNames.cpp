//===- passes/coverage/CoverletNames.cpp - Methods named as coverlet names them ===//
#include "passes/coverage/CoverletNames.h"

#include "metadata/Names.h"
#include "support/StringStream.h"

using namespace llvm;
using namespace weft::metadata;

namespace weft::passes {

namespace {

/// Past this depth a type is written as "?" (a broken signature or a cycle of nesting).
constexpr unsigned MaxDepth = 64;
/// The most dimensions of an array written (a broken signature may claim billions).
constexpr uint32_t MaxRank = 256;

/// Types written as Cecil's TypeReference.FullName writes them.
class CecilNames {
public:
  CecilNames(const Module &M, uint32_t TypeRow, uint32_t MethodRow)
      : M(M), Names(M), TypeRow(TypeRow), MethodRow(MethodRow) {}

  void type(raw_ostream &OS, const TypeSig &T, unsigned Depth = 0) const;
  void method(raw_ostream &OS, const MethodSig &S, unsigned Depth) const;

private:
  void token(raw_ostream &OS, Token T, unsigned Depth) const;
  void named(raw_ostream &OS, StringRef Namespace, StringRef Name) const;
  void arrayRank(raw_ostream &OS, const TypeSig &T) const;
  void genericParam(raw_ostream &OS, const TypeSig &T) const;

  const Module &M;
  NamePrinter Names;
  uint32_t TypeRow, MethodRow;
};

void CecilNames::named(raw_ostream &OS, StringRef Namespace, StringRef Name) const {
  if (!Namespace.empty())
    OS << Namespace << '.';
  OS << Name;
}

void CecilNames::token(raw_ostream &OS, Token T, unsigned Depth) const {
  uint32_t Row = tokenRow(T);
  if (Depth > MaxDepth || !M.isValidToken(T) || Row == 0) {
    OS << '?';
    return;
  }
  switch (tokenTable(T)) {
  case TableId::TypeDef:
    if (uint32_t Outer = M.enclosingType(Row); Outer && Outer != Row) {
      token(OS, makeToken(TableId::TypeDef, Outer), Depth + 1);
      OS << '/';
    }
    named(OS, M.getString(M.get(TableId::TypeDef, Row, TypeDefCol::TypeNamespace)),
          M.getString(M.get(TableId::TypeDef, Row, TypeDefCol::TypeName)));
    return;
  case TableId::TypeRef: {
    Token Scope = M.getToken(TableId::TypeRef, Row, TypeRefCol::ResolutionScope);
    if (tokenTable(Scope) == TableId::TypeRef && tokenRow(Scope) != Row) {
      token(OS, Scope, Depth + 1);
      OS << '/';
    }
    named(OS, M.getString(M.get(TableId::TypeRef, Row, TypeRefCol::TypeNamespace)),
          M.getString(M.get(TableId::TypeRef, Row, TypeRefCol::TypeName)));
    return;
  }
  case TableId::TypeSpec:
    if (Expected<TypeSig> S = typeSpecSig(M, Row))
      return type(OS, *S, Depth + 1);
    else
      consumeError(S.takeError());
    [[fallthrough]];
  default: OS << '?';
  }
}

void CecilNames::arrayRank(raw_ostream &OS, const TypeSig &T) const {
  // Cecil's dimension: "lower...upper" when a bound is known, else nothing.
  OS << '[';
  for (uint32_t D = 0; D < T.Number && D < MaxRank; ++D) {
    if (D)
      OS << ',';
    if (D >= T.LowerBounds.size())
      continue;
    OS << T.LowerBounds[D] << "...";
    if (D < T.Sizes.size())
      OS << int64_t(T.LowerBounds[D]) + T.Sizes[D] - 1;
  }
  OS << ']';
}

void CecilNames::genericParam(raw_ostream &OS, const TypeSig &T) const {
  bool OfMethod = T.Kind == ElementType::MVar;
  StringRef Name = OfMethod
                       ? Names.genericParamName(makeToken(TableId::MethodDef, MethodRow), T.Number)
                       : Names.genericParamName(makeToken(TableId::TypeDef, TypeRow), T.Number);
  if (Name.empty())
    OS << (OfMethod ? "!!" : "!") << T.Number;
  else
    OS << Name;
}

void CecilNames::type(raw_ostream &OS, const TypeSig &T, unsigned Depth) const {
  if (const char *P = primitiveFullName(T.Kind))
    return void(OS << P);
  bool HasElement = !T.Args.empty();
  if (Depth > MaxDepth)
    return void(OS << '?');
  switch (T.Kind) {
  case ElementType::Ptr:
  case ElementType::ByRef:
  case ElementType::SZArray:
  case ElementType::Pinned:
  case ElementType::Array:
    if (HasElement)
      type(OS, T.element(), Depth + 1);
    if (T.Kind == ElementType::Array)
      return arrayRank(OS, T);
    OS << (T.Kind == ElementType::Ptr      ? "*"
           : T.Kind == ElementType::ByRef  ? "&"
           : T.Kind == ElementType::Pinned ? " pinned"
                                           : "[]");
    return;
  case ElementType::CModReqd:
  case ElementType::CModOpt:
    if (HasElement)
      type(OS, T.element(), Depth + 1);
    OS << (T.Kind == ElementType::CModReqd ? " modreq(" : " modopt(");
    token(OS, T.TypeToken, Depth + 1);
    OS << ')';
    return;
  case ElementType::ValueType:
  case ElementType::Class: return token(OS, T.TypeToken, Depth + 1);
  case ElementType::Var:
  case ElementType::MVar: return genericParam(OS, T);
  case ElementType::GenericInst:
    if (!HasElement)
      break;
    token(OS, T.Args[0].TypeToken, Depth + 1);
    OS << '<';
    for (size_t I = 1; I < T.Args.size(); ++I) {
      if (I > 1)
        OS << ',';
      type(OS, T.Args[I], Depth + 1);
    }
    OS << '>';
    return;
  case ElementType::FnPtr:
    if (!T.Method)
      break;
    OS << "method ";
    return method(OS, *T.Method, Depth + 1);
  default: break;
  }
  OS << '?';
}

void CecilNames::method(raw_ostream &OS, const MethodSig &S, unsigned Depth) const {
  // A function pointer: "method R *(A,B)".
  type(OS, S.Return, Depth);
  OS << " *(";
  for (size_t I = 0; I < S.Params.size(); ++I) {
    OS << (I ? "," : "");
    type(OS, S.Params[I], Depth);
  }
  OS << ')';
}

} // namespace

std::string coverletMethodName(const Module &M, uint32_t TypeRow, StringRef TypeName,
                               uint32_t MethodRow, const MethodSig &Sig) {
  std::string Out;
  StringStream OS(Out);
  CecilNames Names(M, TypeRow, MethodRow);
  Names.type(OS, Sig.Return);
  OS << ' ' << TypeName
     << "::" << M.getString(M.get(TableId::MethodDef, MethodRow, MethodDefCol::Name)) << '(';
  for (size_t I = 0; I < Sig.Params.size(); ++I) {
    if (I)
      OS << ',';
    if (int(I) == Sig.SentinelIndex)
      OS << "...,";
    Names.type(OS, Sig.Params[I]);
  }
  OS << ')';
  OS.flush();
  return Out;
}

} // namespace weft::passes
