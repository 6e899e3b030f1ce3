//===- passes/intercept/InterceptMatch.cpp - intercept-call's decisions ---===//
#include "passes/intercept/InterceptMatch.h"

#include "metadata/Names.h"
#include "pe/Image.h"
#include "pe/StrongName.h"
#include "support/Format.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;
using namespace weft::metadata;

namespace weft::passes::intercept {

namespace {

constexpr unsigned MaxNameDepth = 32;

/// "Ns.Outer/Inner" for a TypeDef or TypeRef, unquoted and without its assembly; empty for
/// anything else.
std::string plainTypeName(const Module &M, Token T, unsigned Depth = 0) {
  if (!M.isValidToken(T) || Depth > MaxNameDepth)
    return {};
  auto Join = [](StringRef Ns, StringRef N) { return Ns.empty() ? N.str() : (Ns + "." + N).str(); };
  if (tokenTable(T) == TableId::TypeDef) {
    uint32_t Row = tokenRow(T);
    std::string Own = Join(M.getString(M.get(TableId::TypeDef, Row, TypeDefCol::TypeNamespace)),
                           M.getString(M.get(TableId::TypeDef, Row, TypeDefCol::TypeName)));
    if (uint32_t Outer = M.enclosingType(Row))
      return plainTypeName(M, makeToken(TableId::TypeDef, Outer), Depth + 1) + "/" + Own;
    return Own;
  }
  if (tokenTable(T) == TableId::TypeRef) {
    uint32_t Row = tokenRow(T);
    std::string Own = Join(M.getString(M.get(TableId::TypeRef, Row, TypeRefCol::TypeNamespace)),
                           M.getString(M.get(TableId::TypeRef, Row, TypeRefCol::TypeName)));
    Token Scope = M.getToken(TableId::TypeRef, Row, TypeRefCol::ResolutionScope);
    if (tokenTable(Scope) == TableId::TypeRef && tokenRow(Scope))
      return plainTypeName(M, Scope, Depth + 1) + "/" + Own;
    return Own;
  }
  return {};
}

/// The type without custom modifiers and `pinned`, at every level.
TypeSig withoutModifiers(const TypeSig &T0) {
  const TypeSig &T = T0.stripped();
  TypeSig Out = T;
  Out.Args.clear();
  for (const TypeSig &A : T.Args)
    Out.Args.push_back(withoutModifiers(A));
  return Out;
}

/// Drops the assembly scopes (`[System.Runtime]`, `[.module x]`) from NamePrinter's text. A scope
/// starts a type name (after a space, `<`, `,`, `(` or at the start); array brackets follow one.
std::string withoutScopes(StringRef Text) {
  std::string Out;
  for (size_t I = 0; I < Text.size(); ++I) {
    char C = Text[I];
    if (C == '[' && (Out.empty() || StringRef(" <,(").contains(Out.back()))) {
      size_t Close = Text.find(']', I);
      if (Close != StringRef::npos) {
        I = Close;
        continue;
      }
    }
    Out += C;
  }
  return Out;
}

/// How a type in the user's parameter list is compared: no scopes, no `class` or `valuetype`, no
/// spaces.
std::string listKey(StringRef Text) {
  std::string Scopeless = withoutScopes(Text.trim());
  std::string Out;
  StringRef S = Scopeless;
  while (!S.empty()) {
    bool WordStart = Out.empty() || StringRef("<,( ").contains(Out.back());
    if (WordStart && S.startswith("class ")) {
      S = S.drop_front(6);
      continue;
    }
    if (WordStart && S.startswith("valuetype ")) {
      S = S.drop_front(10);
      continue;
    }
    Out += S.front();
    S = S.drop_front();
  }
  Out.erase(std::remove(Out.begin(), Out.end(), ' '), Out.end());
  return Out;
}

/// The System type a primitive element type stands for (not void, nor a typed reference).
const char *systemName(ElementType K) {
  return K == ElementType::Void || K == ElementType::TypedByRef ? nullptr : primitiveFullName(K);
}

/// Whether TypeDef \p Row of \p M is a value type (extends System.ValueType or System.Enum).
bool isValueTypeDef(const Module &M, uint32_t Row) {
  Token Extends = M.getToken(TableId::TypeDef, Row, TypeDefCol::Extends);
  std::string Base = plainTypeName(M, Extends);
  std::string Own = plainTypeName(M, makeToken(TableId::TypeDef, Row));
  return (Base == "System.ValueType" && Own != "System.Enum") || Base == "System.Enum";
}

/// \p T with the generic parameters of the callee put in: `!n` from \p Types, `!!n` from
/// \p Methods (a parameter without an argument stays as it is).
TypeSig substituted(const TypeSig &T, ArrayRef<TypeSig> Types, ArrayRef<TypeSig> Methods) {
  if (T.Kind == ElementType::Var && T.Number < Types.size())
    return Types[T.Number];
  if (T.Kind == ElementType::MVar && T.Number < Methods.size())
    return Methods[T.Number];
  TypeSig Out = T;
  for (TypeSig &A : Out.Args)
    A = substituted(A, Types, Methods);
  return Out;
}

/// \p T as a generic replacement sees it: the type's parameters first, then the method's, all as
/// the replacement's own (`!n` becomes `!!n`, `!!m` becomes `!!(TypeArity + m)`).
TypeSig opened(const TypeSig &T, uint32_t TypeArity) {
  TypeSig Out = T;
  if (T.Kind == ElementType::Var)
    Out.Kind = ElementType::MVar;
  else if (T.Kind == ElementType::MVar)
    Out.Number = T.Number + TypeArity;
  for (TypeSig &A : Out.Args)
    A = opened(A, TypeArity);
  return Out;
}

std::string key(const NamePrinter &P, const TypeSig &T) {
  std::string Text;
  raw_string_ostream OS(Text);
  P.type(OS, withoutModifiers(T), GenericContext{});
  return withoutScopes(OS.str());
}

/// "Ns.Type<!!0,!!1>": a generic type over a generic replacement's first parameters.
std::string openTypeKey(StringRef Type, uint32_t Arity) {
  std::string Out = Type.str();
  if (!Arity)
    return Out;
  Out += '<';
  for (uint32_t I = 0; I < Arity; ++I)
    Out += (I ? ",!!" : "!!") + std::to_string(I);
  return Out + '>';
}

/// The type of a replacement's first parameter as an instance's type: its key ("" for object),
/// and how the instance is passed.
std::pair<Receiver, std::string> instanceOf(const NamePrinter &P, const TypeSig &First) {
  switch (First.Kind) {
  case ElementType::Object: return {Receiver::Reference, ""};
  case ElementType::String: return {Receiver::Reference, "System.String"};
  case ElementType::Class:
  case ElementType::GenericInst:
    if (First.Kind == ElementType::GenericInst && First.Args[0].Kind != ElementType::Class)
      return {Receiver::None, listKey(key(P, First))}; // a generic value type by value
    return {Receiver::Reference, listKey(key(P, First))};
  case ElementType::ByRef: {
    const TypeSig &E = First.element().stripped();
    if (E.isPrimitive())
      return {Receiver::Pointer, systemName(E.Kind)};
    if (E.Kind == ElementType::ValueType || E.Kind == ElementType::GenericInst)
      return {Receiver::Pointer, listKey(key(P, E))};
    return {Receiver::None, ""};
  }
  case ElementType::ValueType: return {Receiver::None, listKey(key(P, First))};
  default:
    if (First.isPrimitive()) // taken by value: right for a static target, wrong as an instance
      return {Receiver::None, systemName(First.Kind)};
    return {Receiver::None, ""};
  }
}

} // namespace

/// A token of the woven module that names the target, with what its sites call.
struct Matcher::Callee {
  Token Tok = 0;
  Token Parent = 0;  // the declaring TypeDef or TypeRef (the generic type of an instantiation)
  TypeSig ParentSig; // the declaring type as the token names it (a GenericInst if generic)
  MethodSig Sig;     // the method's signature as referenced
  std::vector<TypeSig> MethodArgs;
  bool HasMethodArgs = false; // a MethodSpec
  ArrayRef<TypeSig> typeArgs() const {
    return ParentSig.Kind == ElementType::GenericInst
               ? ArrayRef<TypeSig>(ParentSig.Args).drop_front()
               : ArrayRef<TypeSig>();
  }
};

Matcher::Matcher(const PassOptions &O) : Options(O) {}
Matcher::~Matcher() = default;

Error Matcher::prepare(ModuleContext &MC) {
  if (Error E = parseTarget())
    return E;
  if (Error E = openReplacement(MC))
    return E;
  if (Error E = findCandidates())
    return E;
  return decideSites(MC);
}

Error Matcher::parseTarget() {
  Tgt.Text = Options.get("target").trim().str();
  StringRef Text = Tgt.Text;
  size_t Sep = Text.find("::");
  if (Text.empty() || Sep == StringRef::npos || Sep == 0 || Sep + 2 == Text.size())
    return Options.error("target '" + Text +
                         "' is not of the form Namespace.Type::Method or "
                         "Namespace.Type::Method(param, ...)");
  Tgt.Type = Text.take_front(Sep).trim().str();
  StringRef Method = Text.drop_front(Sep + 2).trim();
  if (size_t Open = Method.find('('); Open != StringRef::npos) {
    if (!Method.endswith(")"))
      return Options.error("target '" + Text + "': the parameter list does not end with ')'");
    StringRef List = Method.slice(Open + 1, Method.size() - 1).trim();
    Method = Method.take_front(Open).trim();
    std::vector<std::string> Params;
    SmallVector<StringRef, 4> Items;
    if (!List.empty())
      List.split(Items, ',');
    for (StringRef I : Items) {
      if (I.trim().empty())
        return Options.error("target '" + Text + "': an empty parameter type");
      Params.push_back(listKey(I));
    }
    Tgt.Params = std::move(Params);
  }
  Tgt.Method = Method.str();
  if (StringRef(Tgt.Type).contains('<') || Method.contains('<'))
    return Options.error("target '" + Text +
                         "': name a generic type by its arity (List`1) and a generic method by "
                         "its name, without type arguments");
  if (Tgt.Method == ".cctor")
    return Options.error("target '" + Text + "': a type initializer is never called");
  return Error::success();
}

Error Matcher::openReplacement(ModuleContext &MC) {
  Path = Options.path("replacement-assembly");
  TypeName = Options.get("replacement-type").trim().str();
  if (Path.empty() || TypeName.empty())
    return Options.error(
        "intercept-call needs the options target, replacement-assembly and replacement-type");
  if (!sys::fs::exists(Path))
    return Options.error("replacement assembly '" + Path + "' does not exist");
  Expected<std::shared_ptr<const OpenedAssembly>> Opened = MC.openAssembly(Path);
  if (!Opened)
    return Options.error("replacement assembly: " + toString(Opened.takeError()));
  Replacement = std::move(*Opened);
  R = Replacement->Mod.get();
  if (!R->rowCount(TableId::Assembly))
    return Options.error("'" + Path + "' is a module without an assembly manifest");

  // Outer/Inner for nested types.
  SmallVector<StringRef, 2> Parts;
  StringRef(TypeName).split(Parts, '/');
  auto [Ns, Name] = Parts[0].rsplit('.');
  if (Name.empty())
    std::swap(Ns, Name);
  TypeRow = R->findTypeDef(Ns, Name);
  for (size_t I = 1; I < Parts.size() && TypeRow; ++I) {
    uint32_t Found = 0;
    for (uint32_t N : R->nestedTypes(TypeRow))
      if (R->getString(R->get(TableId::TypeDef, N, TypeDefCol::TypeName)) == Parts[I])
        Found = N;
    TypeRow = Found;
  }
  if (!TypeRow)
    return Options.error("replacement assembly '" + Path + "' has no type " + TypeName);
  for (uint32_t Row = TypeRow; Row; Row = R->enclosingType(Row)) {
    uint32_t Visibility = R->get(TableId::TypeDef, Row, TypeDefCol::Flags) & 0x7;
    if (Visibility != (R->enclosingType(Row) ? 2u : 1u)) // NestedPublic, Public
      return Options.error("replacement type " + TypeName +
                           " is not public (the woven code could not call it)");
  }
  return Error::success();
}

std::optional<Candidate> Matcher::candidate(uint32_t Row, std::string &Problem) const {
  uint32_t Flags = R->get(TableId::MethodDef, Row, MethodDefCol::Flags);
  Expected<MethodSig> S = methodDefSig(*R, Row);
  if (!S)
    Problem = "has a signature weft cannot read: " + toString(S.takeError());
  else if (!(Flags & 0x10) || (Flags & 0x7) != 6)
    Problem = "is not public and static";
  else if (S->kind() != SigDefault)
    Problem = "is not a plain managed method (vararg or unmanaged)";
  if (!Problem.empty())
    return std::nullopt;
  NamePrinter P(*R);
  Candidate Cd;
  Cd.Row = Row;
  Cd.Sig = std::move(*S);
  Cd.Return = key(P, Cd.Sig.Return);
  for (const TypeSig &T : Cd.Sig.Params) {
    Cd.Params.push_back(key(P, T));
    Cd.ListParams.push_back(listKey(Cd.Params.back()));
  }
  raw_string_ostream OS(Cd.Text);
  OS << Cd.Return << ' ' << TypeName
     << "::" << R->getString(R->get(TableId::MethodDef, Row, MethodDefCol::Name));
  if (Cd.arity())
    OS << '<' << Cd.arity() << " generic parameter" << (Cd.arity() == 1 ? "" : "s") << '>';
  OS << '(';
  for (size_t I = 0; I < Cd.Params.size(); ++I)
    OS << (I ? ", " : "") << Cd.Params[I];
  OS << ')';
  if (!Cd.Sig.Params.empty())
    std::tie(Cd.Instance, Cd.InstanceType) = instanceOf(P, Cd.Sig.Params[0].stripped());
  return Cd;
}

Error Matcher::findCandidates() {
  std::string Wanted =
      Options.get("replacement-method", Tgt.constructor() ? "Create" : StringRef(Tgt.Method))
          .trim()
          .str();
  std::string FirstProblem;
  bool Named = false;
  for (uint32_t L : R->typeMethods(TypeRow)) {
    uint32_t Row = R->method(L);
    if (R->getString(R->get(TableId::MethodDef, Row, MethodDefCol::Name)) != Wanted)
      continue;
    Named = true;
    std::string Problem;
    if (std::optional<Candidate> Cd = candidate(Row, Problem))
      Candidates.push_back(std::move(*Cd));
    else if (FirstProblem.empty())
      FirstProblem = std::move(Problem);
  }
  if (!Named)
    return Options.error("replacement type " + TypeName + " has no method " + Wanted);
  if (Candidates.empty())
    return Options.error("replacement " + TypeName + "::" + Wanted + " " + FirstProblem +
                         "; a replacement is a public static method");
  // A parameter list names one overload of a plain method: some replacement must fit it.
  bool Plain = !StringRef(Tgt.Type).contains('`') && !Tgt.constructor();
  if (!Tgt.Params || !Plain)
    return Error::success();
  const std::vector<std::string> &L = *Tgt.Params;
  bool Fits = false, ByValue = false, AnyPlain = false;
  for (const Candidate &Cd : Candidates) {
    if (Cd.arity())
      continue;
    AnyPlain = true;
    ArrayRef<std::string> Ps = Cd.ListParams;
    bool Rest = Ps.size() == L.size() + 1 && Ps.drop_front() == ArrayRef<std::string>(L);
    bool Instance =
        Cd.Instance != Receiver::None && (Cd.InstanceType.empty() || Cd.InstanceType == Tgt.Type);
    Fits |= Ps == ArrayRef<std::string>(L) || (Rest && Instance);
    ByValue |= Rest && Cd.Instance == Receiver::None && Cd.InstanceType == Tgt.Type;
  }
  if (AnyPlain && !Fits)
    return Options.error("no method " + Wanted + " of " + TypeName + " fits the target " +
                         Tgt.Text + ": a replacement takes the same parameters (" + join(L, ", ") +
                         "), after the instance for an instance method (" + Tgt.Type +
                         " or object; `ref " + Tgt.Type + "` for a value type); it has " +
                         candidateList() +
                         (ByValue ? " (a value type's instance is passed by reference)" : ""));
  return Error::success();
}

std::string Matcher::candidateList() const {
  std::string Out;
  for (const Candidate &Cd : Candidates)
    Out += (Out.empty() ? "" : ", ") + Cd.Text;
  return Out;
}

std::vector<Matcher::Callee> Matcher::callees(ModuleContext &MC) const {
  const Module &M = MC.module();
  std::vector<Callee> Out;
  auto Add = [&](Token Tok, Token Parent, TypeSig ParentSig, Expected<MethodSig> S) {
    if (!S) {
      consumeError(S.takeError()); // a signature the verifier reports
      return;
    }
    if (Tgt.Params) { // another overload?
      NamePrinter P(M);
      std::vector<std::string> List;
      for (const TypeSig &T : S->Params)
        List.push_back(listKey(key(P, T)));
      if (List != *Tgt.Params)
        return;
    }
    Callee C;
    C.Tok = Tok;
    C.Parent = Parent;
    C.ParentSig = std::move(ParentSig);
    C.Sig = std::move(*S);
    Out.push_back(std::move(C));
  };
  auto ClassOf = [&](Token T) {
    bool Value = tokenTable(T) == TableId::TypeDef && isValueTypeDef(M, tokenRow(T));
    TypeSig S(Value ? ElementType::ValueType : ElementType::Class);
    S.TypeToken = T;
    return S;
  };
  for (uint32_t Row = 1; Row <= M.rowCount(TableId::MemberRef); ++Row) {
    if (M.getString(M.get(TableId::MemberRef, Row, MemberRefCol::Name)) != Tgt.Method)
      continue;
    ArrayRef<uint8_t> Blob = M.getBlob(M.get(TableId::MemberRef, Row, MemberRefCol::Signature));
    if (!Blob.empty() && (Blob[0] & SigKindMask) == SigField)
      continue;
    Token Parent = M.getToken(TableId::MemberRef, Row, MemberRefCol::Class);
    TypeSig ParentSig = ClassOf(Parent);
    if (tokenTable(Parent) == TableId::TypeSpec) {
      Expected<TypeSig> Spec = typeSpecSig(M, tokenRow(Parent));
      if (!Spec || Spec->Kind != ElementType::GenericInst) {
        if (!Spec)
          consumeError(Spec.takeError());
        continue;
      }
      ParentSig = std::move(*Spec);
      Parent = ParentSig.Args[0].TypeToken;
    } else if (tokenTable(Parent) != TableId::TypeRef && tokenTable(Parent) != TableId::TypeDef) {
      continue;
    }
    if (plainTypeName(M, Parent) == Tgt.Type)
      Add(makeToken(TableId::MemberRef, Row), Parent, std::move(ParentSig),
          memberRefMethodSig(M, Row));
  }
  for (uint32_t Row = 1; Row <= M.rowCount(TableId::MethodDef); ++Row) {
    if (M.getString(M.get(TableId::MethodDef, Row, MethodDefCol::Name)) != Tgt.Method)
      continue;
    Token Parent = makeToken(TableId::TypeDef, M.declaringTypeOfMethod(Row));
    if (!tokenRow(Parent) || plainTypeName(M, Parent) != Tgt.Type)
      continue;
    // Inside its own generic type a method is called on the type over its own parameters.
    TypeSig ParentSig = ClassOf(Parent);
    if (size_t N = M.genericParams(Parent).size()) {
      TypeSig Inst(ElementType::GenericInst);
      Inst.Args.push_back(ParentSig);
      for (uint32_t I = 0; I < N; ++I) {
        TypeSig V(ElementType::Var);
        V.Number = I;
        Inst.Args.push_back(V);
      }
      ParentSig = std::move(Inst);
    }
    Add(makeToken(TableId::MethodDef, Row), Parent, std::move(ParentSig), methodDefSig(M, Row));
  }
  // Instantiations of a generic target method.
  size_t Methods = Out.size();
  for (uint32_t Row = 1; Row <= M.rowCount(TableId::MethodSpec); ++Row) {
    Token Method = M.getToken(TableId::MethodSpec, Row, MethodSpecCol::Method);
    for (size_t I = 0; I < Methods; ++I) {
      if (Out[I].Tok != Method)
        continue;
      ArrayRef<uint8_t> Blob =
          M.getBlob(M.get(TableId::MethodSpec, Row, MethodSpecCol::Instantiation));
      Expected<std::vector<TypeSig>> Args = decodeMethodSpec(Blob, 0, &M);
      if (!Args) {
        consumeError(Args.takeError());
        break;
      }
      Callee C = Out[I];
      C.Tok = makeToken(TableId::MethodSpec, Row);
      C.MethodArgs = std::move(*Args);
      C.HasMethodArgs = true;
      Out.push_back(std::move(C));
      break;
    }
  }
  return Out;
}

Error Matcher::decideSites(ModuleContext &MC) {
  for (const Callee &C : callees(MC)) {
    // A generic method is called through its instantiations only.
    if (C.Sig.isGeneric() && !C.HasMethodArgs)
      continue;
    Decision D;
    decide(MC.module(), C, D);
    if (D.Candidate >= 0) {
      Expected<Token> Repl = replacementFor(MC, C, D);
      if (!Repl)
        return Repl.takeError();
      D.Replacement = *Repl;
    }
    // A value type's constructor called in place stores the factory's result (stobj).
    if (Tgt.constructor() && D.ValueType.value_or(false)) {
      std::vector<uint8_t> Spec;
      encodeTypeSig(C.ParentSig, Spec);
      D.DeclaringType = C.ParentSig.Kind == ElementType::GenericInst ? MC.typeSpec(Spec) : C.Parent;
    }
    Decisions.try_emplace(C.Tok, std::move(D));
  }
  return Error::success();
}

void Matcher::decide(const Module &M, const Callee &C, Decision &D) {
  NamePrinter P(M);
  ArrayRef<TypeSig> TypeArgs = C.typeArgs();
  auto Instantiated = [&](const TypeSig &T) { return substituted(T, TypeArgs, C.MethodArgs); };
  // How the sites name the target: "System.Collections.Generic.List`1<int32>::Add(int32)".
  raw_string_ostream OS(D.Site);
  OS << (TypeArgs.empty() ? Tgt.Type : listKey(key(P, C.ParentSig))) << "::" << Tgt.Method;
  if (C.HasMethodArgs) {
    OS << '<';
    for (size_t I = 0; I < C.MethodArgs.size(); ++I)
      OS << (I ? ", " : "") << key(P, C.MethodArgs[I]);
    OS << '>';
  }
  OS << '(';
  for (size_t I = 0; I < C.Sig.Params.size(); ++I)
    OS << (I ? ", " : "") << key(P, Instantiated(C.Sig.Params[I]));
  OS << ')';

  if (C.Sig.kind() != SigDefault || C.Sig.explicitThis()) {
    D.Why = "it is not a plain managed call (vararg, unmanaged or explicit this)";
    return;
  }
  D.Args = uint32_t(C.Sig.Params.size());
  if (C.Sig.hasThis())
    D.ValueType = isValueType(M, C.Parent);
  std::string Mismatch;
  for (size_t I = 0; I < Candidates.size(); ++I) {
    if (!fits(M, Candidates[I], C, D, Mismatch))
      continue;
    D.Candidate = int(I);
    if (C.Sig.hasThis() && !Tgt.constructor())
      for (const TypeSig &T : C.Sig.Params) {
        D.ArgTypes.emplace_back();
        encodeTypeSig(withoutModifiers(Instantiated(T)), D.ArgTypes.back());
      }
    return;
  }
  std::string Shape;
  raw_string_ostream SS(Shape);
  SS << (Tgt.constructor() ? listKey(key(P, Instantiated(C.ParentSig)))
                           : key(P, Instantiated(C.Sig.Return)))
     << " (";
  bool Instance = C.Sig.hasThis() && !Tgt.constructor();
  if (Instance)
    SS << "instance" << (C.Sig.Params.empty() ? "" : ", ");
  for (size_t I = 0; I < C.Sig.Params.size(); ++I)
    SS << (I ? ", " : "") << key(P, Instantiated(C.Sig.Params[I]));
  SS << ')';
  D.Why = "no replacement fits " + SS.str() + (Mismatch.empty() ? "" : " (" + Mismatch + ")") +
          "; the replacements are " + candidateList();
}

bool Matcher::fits(const Module &M, const Candidate &Cd, const Callee &C, Decision &D,
                   std::string &Mismatch) const {
  NamePrinter P(M);
  uint32_t TypeArity = uint32_t(C.typeArgs().size()), MethodArity = C.Sig.GenericParamCount;
  bool Generic = Cd.arity() > 0;
  if (Generic && Cd.arity() != TypeArity + MethodArity) {
    Mismatch = "a generic replacement takes the generic arguments of the target's type, then "
               "those of the method: " +
               std::to_string(TypeArity + MethodArity);
    return false;
  }
  // The target's types as this candidate sees them: over its own generic parameters, or
  // instantiated as the site instantiates them.
  auto View = [&](const TypeSig &T) {
    return Generic ? opened(T, TypeArity) : substituted(T, C.typeArgs(), C.MethodArgs);
  };
  std::string Declaring = Generic     ? openTypeKey(Tgt.Type, TypeArity)
                          : TypeArity ? listKey(key(P, C.ParentSig))
                                      : Tgt.Type;
  std::vector<std::string> Params;
  for (const TypeSig &T : C.Sig.Params)
    Params.push_back(key(P, View(T)));
  ArrayRef<std::string> Ps = Cd.Params;
  if (Tgt.constructor()) {
    if (Ps != ArrayRef<std::string>(Params))
      return false;
    if (listKey(Cd.Return) != Declaring) {
      Mismatch = "a factory for a constructor returns " + Declaring;
      return false;
    }
    return true;
  }
  if (Cd.Return != key(P, View(C.Sig.Return)))
    return false;
  if (!C.Sig.hasThis())
    return Ps == ArrayRef<std::string>(Params);
  if (Ps.size() != Params.size() + 1 || Ps.drop_front() != ArrayRef<std::string>(Params))
    return false;
  if (Cd.Instance == Receiver::None && !Cd.InstanceType.empty()) {
    Mismatch = "the replacement takes the instance by value; a value type's method gets a "
               "managed pointer, so declare it `ref " +
               Cd.InstanceType + "`";
    return false;
  }
  if (Cd.Instance == Receiver::None || (!Cd.InstanceType.empty() && Cd.InstanceType != Declaring)) {
    Mismatch =
        "the replacement's first parameter is not the instance (" + Declaring + ", or object)";
    return false;
  }
  bool WantsPointer = Cd.Instance == Receiver::Pointer;
  if (D.ValueType && *D.ValueType != WantsPointer) {
    Mismatch = *D.ValueType ? Declaring +
                                  " is a value type: the replacement takes its instance as "
                                  "`ref " +
                                  Declaring + "`"
                            : Declaring +
                                  " is a reference type: the replacement takes its instance "
                                  "as " +
                                  Declaring + " or object, not by reference";
    return false;
  }
  D.Instance = Cd.Instance;
  return true;
}

std::optional<bool> Matcher::isValueType(const Module &M, Token Parent) {
  if (tokenTable(Parent) == TableId::TypeDef)
    return isValueTypeDef(M, tokenRow(Parent));
  if (tokenTable(Parent) != TableId::TypeRef)
    return std::nullopt;
  if (!Resolver) {
    std::vector<std::string> Dirs{sys::path::parent_path(Path).str()};
    if (Dirs.front().empty())
      Dirs.front() = ".";
    for (std::string &D : AssemblyResolver::sharedFrameworkDirs())
      Dirs.push_back(std::move(D));
    Resolver = std::make_unique<AssemblyResolver>(std::move(Dirs));
  }
  std::optional<ResolvedType> RT = Resolver->resolveTypeRef(M, tokenRow(Parent));
  if (!RT)
    return std::nullopt;
  return isValueTypeDef(*RT->M, RT->Row);
}

Expected<Token> Matcher::replacementFor(ModuleContext &MC, const Callee &C, const Decision &D) {
  Candidate &Cd = Candidates[D.Candidate];
  if (!Cd.Ref) {
    Expected<Token> Ref = importReplacement(MC, Cd);
    if (!Ref)
      return Ref.takeError();
    Cd.Ref = *Ref;
  }
  if (!Cd.arity())
    return Cd.Ref;
  // A generic replacement gets the type's arguments, then the method's.
  std::vector<uint8_t> Inst{uint8_t(SigGenericInst)};
  appendCompressed(Inst, Cd.arity());
  for (const TypeSig &T : C.typeArgs())
    encodeTypeSig(T, Inst);
  for (const TypeSig &T : C.MethodArgs)
    encodeTypeSig(T, Inst);
  return MC.methodSpec(Cd.Ref, Inst);
}

/// The MemberRef through which the woven module calls \p Cd.
Expected<Token> Matcher::importReplacement(ModuleContext &MC, const Candidate &Cd) {
  if (!ReplacementType) {
    Expected<Token> T = importTypeToken(MC, makeToken(TableId::TypeDef, TypeRow), 0);
    if (!T)
      return T.takeError();
    ReplacementType = *T;
  }
  MethodSig S = Cd.Sig;
  Expected<TypeSig> Ret = importType(MC, S.Return, 0);
  if (!Ret)
    return Ret.takeError();
  S.Return = std::move(*Ret);
  for (TypeSig &T : S.Params) {
    Expected<TypeSig> I = importType(MC, T, 0);
    if (!I)
      return I.takeError();
    T = std::move(*I);
  }
  std::vector<uint8_t> Blob;
  encodeMethodSig(S, Blob);
  return MC.memberRef(ReplacementType,
                      R->getString(R->get(TableId::MethodDef, Cd.Row, MethodDefCol::Name)), Blob);
}

/// \p T of the replacement's module with its type tokens made the woven module's.
Expected<TypeSig> Matcher::importType(ModuleContext &MC, const TypeSig &T, unsigned Depth) {
  if (Depth > MaxNameDepth)
    return Options.error("replacement signature nests too deeply");
  TypeSig Out = T;
  if (T.Kind == ElementType::FnPtr)
    return Options.error("replacement " + TypeName +
                         " uses a function pointer type, which weft cannot reference");
  if (T.TypeToken) {
    Expected<Token> Tok = importTypeToken(MC, T.TypeToken, Depth + 1);
    if (!Tok)
      return Tok.takeError();
    Out.TypeToken = *Tok;
  }
  for (TypeSig &A : Out.Args) {
    Expected<TypeSig> I = importType(MC, A, Depth + 1);
    if (!I)
      return I.takeError();
    A = std::move(*I);
  }
  return Out;
}

Expected<Token> Matcher::importTypeToken(ModuleContext &MC, Token T, unsigned Depth) {
  if (Depth > MaxNameDepth || !R->isValidToken(T))
    return Options.error("replacement assembly '" + Path + "': bad type token " + hex(T));
  const Module &M = MC.module();
  uint32_t Row = tokenRow(T);
  switch (tokenTable(T)) {
  case TableId::TypeDef: {
    StringRef Ns = R->getString(R->get(TableId::TypeDef, Row, TypeDefCol::TypeNamespace));
    StringRef N = R->getString(R->get(TableId::TypeDef, Row, TypeDefCol::TypeName));
    Token Scope;
    if (uint32_t Outer = R->enclosingType(Row)) {
      Expected<Token> O = importTypeToken(MC, makeToken(TableId::TypeDef, Outer), Depth + 1);
      if (!O)
        return O.takeError();
      Scope = *O;
    } else {
      Scope = MC.assemblyRef(replacementAssembly());
    }
    return MC.typeRef(Scope, Ns, N);
  }
  case TableId::TypeRef: {
    StringRef Ns = R->getString(R->get(TableId::TypeRef, Row, TypeRefCol::TypeNamespace));
    StringRef N = R->getString(R->get(TableId::TypeRef, Row, TypeRefCol::TypeName));
    Token Scope = R->getToken(TableId::TypeRef, Row, TypeRefCol::ResolutionScope);
    if (tokenTable(Scope) == TableId::TypeRef) {
      Expected<Token> O = importTypeToken(MC, Scope, Depth + 1);
      if (!O)
        return O.takeError();
      if (tokenTable(*O) == TableId::TypeDef) { // a type nested in one of the woven module's
        for (uint32_t Nested : M.nestedTypes(tokenRow(*O)))
          if (M.getString(M.get(TableId::TypeDef, Nested, TypeDefCol::TypeName)) == N)
            return makeToken(TableId::TypeDef, Nested);
        return Options.error("the woven module has no type " + plainTypeName(*R, T) +
                             ", which replacement " + TypeName + " uses");
      }
      return MC.typeRef(*O, Ns, N);
    }
    if (tokenTable(Scope) != TableId::AssemblyRef || !R->isValidToken(Scope))
      return MC.typeRef(MC.assemblyRef(replacementAssembly()), Ns, N);
    uint32_t A = tokenRow(Scope);
    StringRef Assembly = R->getString(R->get(TableId::AssemblyRef, A, AssemblyRefCol::Name));
    // The woven assembly's own types are its definitions.
    if (Assembly.equals_insensitive(MC.assemblyName())) {
      if (uint32_t Def = M.findTypeDef(Ns, N))
        return makeToken(TableId::TypeDef, Def);
      return Options.error("the woven module has no type " + plainTypeName(*R, T) +
                           ", which replacement " + TypeName + " uses");
    }
    // An assembly the woven module already references is referenced the way it does (its
    // version may be older than the one the replacement was built against).
    for (uint32_t W = 1; W <= M.rowCount(TableId::AssemblyRef); ++W)
      if (M.getString(M.get(TableId::AssemblyRef, W, AssemblyRefCol::Name))
              .equals_insensitive(Assembly))
        return MC.typeRef(makeToken(TableId::AssemblyRef, W), Ns, N);
    AssemblyRefInfo Info;
    Info.Name = Assembly;
    for (unsigned I = 0; I < 4; ++I)
      Info.Version[I] = uint16_t(R->get(TableId::AssemblyRef, A, AssemblyRefCol::MajorVersion + I));
    Info.PublicKeyOrToken =
        R->getBlob(R->get(TableId::AssemblyRef, A, AssemblyRefCol::PublicKeyOrToken));
    Info.Culture = R->getString(R->get(TableId::AssemblyRef, A, AssemblyRefCol::Culture));
    Info.Flags = R->get(TableId::AssemblyRef, A, AssemblyRefCol::Flags);
    return MC.typeRef(MC.assemblyRef(Info), Ns, N);
  }
  case TableId::TypeSpec: {
    Expected<TypeSig> S = typeSpecSig(*R, Row);
    if (!S)
      return Options.error("replacement assembly '" + Path + "': " + toString(S.takeError()));
    Expected<TypeSig> I = importType(MC, *S, Depth + 1);
    if (!I)
      return I.takeError();
    std::vector<uint8_t> Blob;
    encodeTypeSig(*I, Blob);
    return MC.typeSpec(Blob);
  }
  default: return Options.error("replacement assembly '" + Path + "': bad type token " + hex(T));
  }
}

/// The replacement assembly as the woven module references it.
AssemblyRefInfo Matcher::replacementAssembly() {
  AssemblyRefInfo Ref;
  Ref.Name = R->getString(R->get(TableId::Assembly, 1, AssemblyCol::Name));
  Ref.Culture = R->getString(R->get(TableId::Assembly, 1, AssemblyCol::Culture));
  for (unsigned I = 0; I < 4; ++I)
    Ref.Version[I] = uint16_t(R->get(TableId::Assembly, 1, AssemblyCol::MajorVersion + I));
  ArrayRef<uint8_t> Key = R->getBlob(R->get(TableId::Assembly, 1, AssemblyCol::PublicKey));
  if (!Key.empty() && KeyToken.empty())
    KeyToken = fromHex(pe::publicKeyToken(Key));
  Ref.PublicKeyOrToken = arrayRefFromStringRef(KeyToken);
  return Ref;
}

} // namespace weft::passes::intercept
