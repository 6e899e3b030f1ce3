//===- weaver/passes/InterceptCall.cpp - intercept-call -------------------===//
//
// Redirects the calls to one method (`call` and `callvirt`, never `newobj`, `ldftn` or
// `ldvirtftn`) to a user's public static replacement:
//
//   callvirt instance string [System.Runtime]System.String::ToUpperInvariant()
//   => call string [Replacements]Weft.Replacements.Strings::ToUpperInvariant(string)
//
// A replacement for a static method takes the same parameters; one for an instance method takes
// the instance first: the declaring type or object for a reference type, `ref T` for a value type
// (whose methods receive a managed pointer). Types are compared by their ILAsm names without the
// assembly that holds them, so `[System.Runtime]System.IO.Stream` in the woven module and
// `[System.Private.CoreLib]System.IO.Stream` in the replacement's are the same type.
//
// Everything that can be decided once is decided in beginModule: which MemberRef and MethodDef
// rows of the module name the target, which replacement overload each one goes to (or why none
// fits), and the replacement's MemberRef in the woven module. runOnMethod only reads that table,
// so the methods can run concurrently.
//
//===----------------------------------------------------------------------===//
#include "metadata/Names.h"
#include "metadata/Resolver.h"
#include "pe/Image.h"
#include "pe/StrongName.h"
#include "support/Format.h"
#include "weaver/il/Prefixes.h"
#include "weaver/passes/Builtins.h"
#include "weaver/passes/Emit.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <map>
#include <optional>

using namespace llvm;
using namespace weft::metadata;

namespace weft::passes {

namespace {

constexpr unsigned MaxNameDepth = 32;

/// Takes \p I out of the order without retargeting what pointed at it (the caller has).
void eraseFromOrder(il::MethodBody &B, il::Instr *I) {
  std::vector<il::Instr *> &Order = B.instructions();
  Order.erase(Order.begin() + B.indexOf(I));
}

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

bool mentionsGenericParameter(const TypeSig &T) {
  if (T.Kind == ElementType::Var || T.Kind == ElementType::MVar)
    return true;
  for (const TypeSig &A : T.Args)
    if (mentionsGenericParameter(A))
      return true;
  return false;
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

/// The System type a primitive element type stands for.
const char *systemName(ElementType K) {
  switch (K) {
  case ElementType::Boolean: return "System.Boolean";
  case ElementType::Char: return "System.Char";
  case ElementType::I1: return "System.SByte";
  case ElementType::U1: return "System.Byte";
  case ElementType::I2: return "System.Int16";
  case ElementType::U2: return "System.UInt16";
  case ElementType::I4: return "System.Int32";
  case ElementType::U4: return "System.UInt32";
  case ElementType::I8: return "System.Int64";
  case ElementType::U8: return "System.UInt64";
  case ElementType::R4: return "System.Single";
  case ElementType::R8: return "System.Double";
  case ElementType::I: return "System.IntPtr";
  case ElementType::U: return "System.UIntPtr";
  case ElementType::String: return "System.String";
  case ElementType::Object: return "System.Object";
  default: return nullptr;
  }
}

/// Whether TypeDef \p Row of \p M is a value type (extends System.ValueType or System.Enum).
bool isValueTypeDef(const Module &M, uint32_t Row) {
  Token Extends = M.getToken(TableId::TypeDef, Row, TypeDefCol::Extends);
  std::string Base = plainTypeName(M, Extends);
  std::string Own = plainTypeName(M, makeToken(TableId::TypeDef, Row));
  return (Base == "System.ValueType" && Own != "System.Enum") || Base == "System.Enum";
}

/// What the method option names: "Ns.Type::Method" with an optional parameter list.
struct Target {
  std::string Type, Method;
  std::optional<std::vector<std::string>> Params; // list keys
  std::string Text;
};

/// How an instance reaches the replacement's first parameter.
enum class Receiver : uint8_t {
  None,      // the replacement cannot take an instance first
  Reference, // object, or the (reference) declaring type
  Pointer,   // `ref T` for a value type T
};

/// A public static method of the replacement type with the right name.
struct Candidate {
  uint32_t Row = 0;
  MethodSig Sig;
  std::string Return;
  std::vector<std::string> Params, ListParams; // compare keys, list keys
  Receiver Instance = Receiver::None;
  std::string InstanceType; // the type Instance names ("" for object)
  std::string Text;         // "string Ns.Type::M(string)" for messages
  Token Ref = 0;            // its MemberRef in the woven module, once a call uses it
};

/// What becomes of the calls through one token of the woven module.
struct Decision {
  int Candidate = -1;
  Receiver Instance = Receiver::None;         // how the call passes its instance (None: static)
  uint32_t Args = 0;                          // parameters besides the instance
  std::vector<std::vector<uint8_t>> ArgTypes; // their encoded types (for spilling)
  Token Replacement = 0;
  std::string Site; // the call's method, "System.Console::WriteLine(int32)"
  std::string Why;  // why it is left alone (Candidate < 0)
};

Expected<Target> parseTarget(const PassOptions &O) {
  Target T;
  T.Text = O.get("target").trim().str();
  StringRef Text = T.Text;
  size_t Sep = Text.find("::");
  if (Text.empty() || Sep == StringRef::npos || Sep == 0 || Sep + 2 == Text.size())
    return O.error("target '" + Text +
                   "' is not of the form Namespace.Type::Method or "
                   "Namespace.Type::Method(param, ...)");
  T.Type = Text.take_front(Sep).trim().str();
  StringRef Method = Text.drop_front(Sep + 2).trim();
  if (size_t Open = Method.find('('); Open != StringRef::npos) {
    if (!Method.endswith(")"))
      return O.error("target '" + Text + "': the parameter list does not end with ')'");
    StringRef List = Method.slice(Open + 1, Method.size() - 1).trim();
    Method = Method.take_front(Open).trim();
    std::vector<std::string> Params;
    SmallVector<StringRef, 4> Items;
    if (!List.empty())
      List.split(Items, ',');
    for (StringRef I : Items) {
      if (I.trim().empty())
        return O.error("target '" + Text + "': an empty parameter type");
      Params.push_back(listKey(I));
    }
    T.Params = std::move(Params);
  }
  T.Method = Method.str();
  if (StringRef(T.Type).contains('`') || StringRef(T.Type).contains('<') || Method.contains('<'))
    return O.error("target '" + Text +
                   "': generic types and methods cannot be intercepted (their calls go through "
                   "instantiations)");
  if (T.Method == ".ctor" || T.Method == ".cctor")
    return O.error("target '" + Text +
                   "': constructors cannot be intercepted (newobj is never redirected)");
  return T;
}

class InterceptCall final : public Pass {
public:
  explicit InterceptCall(const PassOptions &O) : Options(O) {}

  Error beginModule(ModuleContext &MC) override {
    Expected<Target> T = parseTarget(Options);
    if (!T)
      return T.takeError();
    Tgt = std::move(*T);
    if (Error E = openReplacement())
      return E;
    if (Error E = findCandidates())
      return E;
    return decideSites(MC);
  }

  Error runOnMethod(MethodContext &C) override {
    il::MethodBody &B = C.body();
    struct Site {
      il::Instr *Call, *Prefix, *Tail; // Prefix: constrained.; Tail: tail.
      const Decision *D;
    };
    std::vector<Site> Sites;
    const std::vector<il::Instr *> &Order = B.instructions();
    for (size_t I = 0; I < Order.size(); ++I) {
      il::Instr *In = Order[I];
      if (In->Op != il::Opcode::Call && In->Op != il::Opcode::Callvirt)
        continue;
      auto It = Decisions.find(In->Token);
      if (It == Decisions.end())
        continue;
      // The call's prefixes: constrained. and tail., in either order.
      il::Instr *Prefix = nullptr, *Tail = nullptr;
      for (size_t P = il::prefixedStart(Order, I); P < I; ++P) {
        if (Order[P]->Op == il::Opcode::Constrained)
          Prefix = Order[P];
        else if (Order[P]->Op == il::Opcode::Tail)
          Tail = Order[P];
      }
      Sites.push_back({In, Prefix, Tail, &It->second});
    }
    if (Sites.empty()) {
      C.skip("no call to " + Tgt.Text);
      return Error::success();
    }

    std::vector<std::string> LeftAlone;
    auto At = [](const il::Instr *I) {
      return I->OriginalOffset == il::NoOffset ? std::string("a new call")
                                               : "IL_" + hexstr(I->OriginalOffset, true, 4);
    };
    // Spill locals, shared by the calls of this method: (type, position in the call) -> local.
    std::map<std::pair<std::vector<uint8_t>, uint32_t>, uint32_t> Spill;
    unsigned Redirected = 0;
    for (const Site &S : Sites) {
      const Decision &D = *S.D;
      if (D.Candidate < 0) {
        LeftAlone.push_back("call to " + D.Site + " at " + At(S.Call) + " left alone: " + D.Why);
        continue;
      }
      bool Virtual = S.Call->Op == il::Opcode::Callvirt;
      if (D.Instance == Receiver::Pointer && Virtual && !S.Prefix) {
        // A value type's method reached through a boxed instance: the replacement wants the
        // managed pointer the box would have to give up.
        LeftAlone.push_back("call to " + D.Site + " at " + At(S.Call) +
                            " left alone: it calls a value type's method on a boxed instance");
        continue;
      }
      if (S.Prefix) {
        // `constrained. T` may only precede callvirt, and the static call that replaces it takes
        // no prefix. The prefix stood for "the instance is a T&: call T's own method on it, or box
        // it": the replacement gets what the runtime would have passed, the pointer itself (a
        // value type's method, `ref T`) or the boxed value, which for a reference type T is the
        // reference the pointer holds.
        if (D.Instance == Receiver::Reference) {
          Emitter E(B, S.Call);
          std::vector<uint32_t> Locals(D.Args);
          for (uint32_t K = 0; K < D.Args; ++K) {
            auto [It, New] = Spill.try_emplace({D.ArgTypes[K], K}, 0);
            if (New)
              It->second = C.addLocal(D.ArgTypes[K]);
            Locals[K] = It->second;
          }
          for (uint32_t K = D.Args; K-- > 0;)
            E.stloc(Locals[K]);
          E.tok(il::Opcode::Ldobj, S.Prefix->Token);
          E.tok(il::Opcode::Box, S.Prefix->Token);
          for (uint32_t K = 0; K < D.Args; ++K)
            E.ldloc(Locals[K]);
          if (S.Tail) { // `tail.` must stay right before the call, which must stay before its ret
            B.retarget(S.Tail, E.first());
            eraseFromOrder(B, S.Tail);
            E.op(il::Opcode::Tail);
          }
        }
        // What branched to the prefix now reaches the code that replaces it, or the call.
        B.remove(S.Prefix);
      }
      S.Call->Op = il::Opcode::Call;
      S.Call->Token = D.Replacement;
      ++Redirected;
    }
    if (!Redirected) {
      std::string More;
      if (LeftAlone.size() > 1)
        More = " (and " + std::to_string(LeftAlone.size() - 1) + " more)";
      C.skip("no call to " + Tgt.Text + " could be redirected: " + LeftAlone.front() + More);
      return Error::success();
    }
    for (const std::string &N : LeftAlone)
      C.note(N);
    return Error::success();
  }

private:
  Error openReplacement() {
    Path = Options.path("replacement-assembly");
    TypeName = Options.get("replacement-type").trim().str();
    if (Path.empty() || TypeName.empty())
      return Options.error(
          "intercept-call needs the options target, replacement-assembly and replacement-type");
    if (!sys::fs::exists(Path))
      return Options.error("replacement assembly '" + Path + "' does not exist");
    Expected<std::unique_ptr<pe::Image>> Img = pe::Image::open(Path);
    if (!Img)
      return Options.error("replacement assembly: " + toString(Img.takeError()));
    Image = std::move(*Img);
    Expected<std::unique_ptr<Module>> RM =
        Module::create(Image->metadata(), Image->metadataOffset());
    if (!RM)
      return Options.error("replacement assembly '" + Path + "': " + toString(RM.takeError()));
    R = std::move(*RM);
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

  Error findCandidates() {
    std::string Wanted = Options.get("replacement-method", Tgt.Method).trim().str();
    NamePrinter P(*R);
    std::string FirstProblem;
    bool Named = false;
    for (uint32_t L : R->typeMethods(TypeRow)) {
      uint32_t Row = R->method(L);
      if (R->getString(R->get(TableId::MethodDef, Row, MethodDefCol::Name)) != Wanted)
        continue;
      Named = true;
      uint32_t Flags = R->get(TableId::MethodDef, Row, MethodDefCol::Flags);
      Expected<MethodSig> S = methodDefSig(*R, Row);
      std::string Problem;
      if (!S)
        Problem = "has a signature weft cannot read: " + toString(S.takeError());
      else if (!(Flags & 0x10) || (Flags & 0x7) != 6)
        Problem = "is not public and static";
      else if (S->isGeneric())
        Problem = "is generic";
      else if (S->kind() != SigDefault)
        Problem = "is not a plain managed method (vararg or unmanaged)";
      if (!Problem.empty()) {
        if (FirstProblem.empty())
          FirstProblem = std::move(Problem);
        continue;
      }
      Candidate Cd;
      Cd.Row = Row;
      Cd.Sig = std::move(*S);
      Cd.Return = key(P, Cd.Sig.Return);
      for (const TypeSig &T : Cd.Sig.Params) {
        Cd.Params.push_back(key(P, T));
        Cd.ListParams.push_back(listKey(Cd.Params.back()));
      }
      raw_string_ostream OS(Cd.Text);
      OS << Cd.Return << ' ' << TypeName << "::" << Wanted << '(';
      for (size_t I = 0; I < Cd.Params.size(); ++I)
        OS << (I ? ", " : "") << Cd.Params[I];
      OS << ')';
      if (!Cd.Sig.Params.empty()) {
        const TypeSig &First = Cd.Sig.Params[0].stripped();
        if (First.Kind == ElementType::Object) {
          Cd.Instance = Receiver::Reference;
        } else if (First.Kind == ElementType::String) {
          Cd.Instance = Receiver::Reference;
          Cd.InstanceType = "System.String";
        } else if (First.Kind == ElementType::Class) {
          Cd.Instance = Receiver::Reference;
          Cd.InstanceType = plainTypeName(*R, First.TypeToken);
        } else if (First.Kind == ElementType::ByRef) {
          const TypeSig &E = First.element().stripped();
          if (E.Kind == ElementType::ValueType) {
            Cd.Instance = Receiver::Pointer;
            Cd.InstanceType = plainTypeName(*R, E.TypeToken);
          } else if (E.isPrimitive()) {
            Cd.Instance = Receiver::Pointer;
            Cd.InstanceType = systemName(E.Kind);
          }
        } else if (First.Kind == ElementType::ValueType || First.isPrimitive()) {
          // Taken by value: right for a static target, wrong as an instance (see decide()).
          Cd.InstanceType = First.Kind == ElementType::ValueType
                                ? plainTypeName(*R, First.TypeToken)
                                : std::string(systemName(First.Kind));
        }
      }
      Candidates.push_back(std::move(Cd));
    }
    if (!Named)
      return Options.error("replacement type " + TypeName + " has no method " + Wanted);
    if (Candidates.empty())
      return Options.error("replacement " + TypeName + "::" + Wanted + " " + FirstProblem +
                           "; a replacement is a public static non-generic method");
    if (Tgt.Params) {
      const std::vector<std::string> &L = *Tgt.Params;
      bool Fits = false, ByValue = false;
      for (const Candidate &Cd : Candidates) {
        ArrayRef<std::string> Ps = Cd.ListParams;
        bool Rest = Ps.size() == L.size() + 1 && Ps.drop_front() == ArrayRef<std::string>(L);
        bool Instance = Cd.Instance != Receiver::None &&
                        (Cd.InstanceType.empty() || Cd.InstanceType == Tgt.Type);
        Fits |= Ps == ArrayRef<std::string>(L) || (Rest && Instance);
        ByValue |= Rest && Cd.Instance == Receiver::None && Cd.InstanceType == Tgt.Type;
      }
      if (!Fits)
        return Options.error("no method " + Wanted + " of " + TypeName + " fits the target " +
                             Tgt.Text + ": a replacement takes the same parameters (" +
                             join(L, ", ") + "), after the instance for an instance method (" +
                             Tgt.Type + " or object; `ref " + Tgt.Type +
                             "` for a value type); it has " + candidateList() +
                             (ByValue ? " (a value type's instance is passed by reference)" : ""));
    }
    return Error::success();
  }

  std::string candidateList() const {
    std::string Out;
    for (const Candidate &Cd : Candidates)
      Out += (Out.empty() ? "" : ", ") + Cd.Text;
    return Out;
  }

  static std::string key(const NamePrinter &P, const TypeSig &T) {
    std::string Text;
    raw_string_ostream OS(Text);
    P.type(OS, withoutModifiers(T), GenericContext{});
    return withoutScopes(OS.str());
  }

  /// Finds the rows of the woven module that name the target and decides their fate.
  Error decideSites(ModuleContext &MC) {
    const Module &M = MC.module();
    NamePrinter P(M);
    std::vector<std::pair<Token, Decision>> Found;
    auto Consider = [&](Token Tok, Token Parent, Expected<MethodSig> S) {
      if (!S) {
        consumeError(S.takeError()); // a field reference, or a signature the verifier reports
        return;
      }
      Decision D;
      D.Site = Tgt.Type + "::" + Tgt.Method + "(";
      std::vector<std::string> List;
      for (size_t I = 0; I < S->Params.size(); ++I) {
        std::string K = key(P, S->Params[I]);
        D.Site += (I ? ", " : "") + K;
        List.push_back(listKey(K));
      }
      D.Site += ")";
      if (Tgt.Params && List != *Tgt.Params)
        return; // another overload
      decide(M, P, Parent, *S, D);
      Found.emplace_back(Tok, std::move(D));
    };

    for (uint32_t Row = 1; Row <= M.rowCount(TableId::MemberRef); ++Row) {
      if (M.getString(M.get(TableId::MemberRef, Row, MemberRefCol::Name)) != Tgt.Method)
        continue;
      Token Parent = M.getToken(TableId::MemberRef, Row, MemberRefCol::Class);
      if (tokenTable(Parent) != TableId::TypeRef && tokenTable(Parent) != TableId::TypeDef)
        continue;
      if (plainTypeName(M, Parent) != Tgt.Type)
        continue;
      ArrayRef<uint8_t> Blob = M.getBlob(M.get(TableId::MemberRef, Row, MemberRefCol::Signature));
      if (!Blob.empty() && (Blob[0] & SigKindMask) == SigField)
        continue;
      Consider(makeToken(TableId::MemberRef, Row), Parent, memberRefMethodSig(M, Row));
    }
    for (uint32_t Row = 1; Row <= M.rowCount(TableId::MethodDef); ++Row) {
      if (M.getString(M.get(TableId::MethodDef, Row, MethodDefCol::Name)) != Tgt.Method)
        continue;
      uint32_t Type = M.declaringTypeOfMethod(Row);
      Token Parent = makeToken(TableId::TypeDef, Type);
      if (!Type || plainTypeName(M, Parent) != Tgt.Type)
        continue;
      Consider(makeToken(TableId::MethodDef, Row), Parent, methodDefSig(M, Row));
    }
    // Instantiations of a generic method that bears the target's name are reported, not changed.
    std::vector<std::pair<Token, Decision>> Instantiations;
    for (uint32_t Row = 1; Row <= M.rowCount(TableId::MethodSpec); ++Row) {
      Token Method = M.getToken(TableId::MethodSpec, Row, MethodSpecCol::Method);
      for (const auto &[Tok, D] : Found)
        if (Tok == Method) {
          Decision G;
          G.Site = D.Site;
          G.Why = "it calls an instantiation of a generic method";
          Instantiations.emplace_back(makeToken(TableId::MethodSpec, Row), std::move(G));
          break;
        }
    }
    for (auto &I : Instantiations)
      Found.push_back(std::move(I));

    // The replacement's references, for the overloads some call goes to.
    for (auto &[Tok, D] : Found) {
      if (D.Candidate < 0)
        continue;
      Candidate &Cd = Candidates[D.Candidate];
      if (!Cd.Ref) {
        Expected<Token> Ref = importReplacement(MC, Cd);
        if (!Ref)
          return Ref.takeError();
        Cd.Ref = *Ref;
      }
      D.Replacement = Cd.Ref;
    }
    for (auto &[Tok, D] : Found)
      Decisions.try_emplace(Tok, std::move(D));
    return Error::success();
  }

  /// Picks the first overload whose signature fits a call to \p S (a method of \p Parent).
  void decide(const Module &M, const NamePrinter &P, Token Parent, const MethodSig &S,
              Decision &D) {
    bool Generic = S.isGeneric() || mentionsGenericParameter(S.Return);
    for (const TypeSig &T : S.Params)
      Generic |= mentionsGenericParameter(T);
    if (Generic) {
      D.Why = "the method is generic or belongs to a generic type";
      return;
    }
    if (S.kind() != SigDefault || S.explicitThis()) {
      D.Why = "it is not a plain managed call (vararg, unmanaged or explicit this)";
      return;
    }
    std::string Return = key(P, S.Return);
    std::vector<std::string> Params;
    for (const TypeSig &T : S.Params)
      Params.push_back(key(P, T));
    D.Args = uint32_t(S.Params.size());
    std::optional<bool> ValueType; // of the declaring type, when known
    if (S.hasThis())
      ValueType = isValueType(M, Parent);

    std::string Mismatch;
    for (size_t I = 0; I < Candidates.size(); ++I) {
      const Candidate &Cd = Candidates[I];
      if (Cd.Return != Return)
        continue;
      ArrayRef<std::string> Ps = Cd.Params;
      if (!S.hasThis()) {
        if (Ps != ArrayRef<std::string>(Params))
          continue;
      } else {
        if (Ps.size() != Params.size() + 1 || Ps.drop_front() != ArrayRef<std::string>(Params))
          continue;
        if (Cd.Instance == Receiver::None && !Cd.InstanceType.empty()) {
          Mismatch = "the replacement takes the instance by value; a value type's method "
                     "gets a managed pointer, so declare it `ref " +
                     Cd.InstanceType + "`";
          continue;
        }
        if (Cd.Instance == Receiver::None ||
            (!Cd.InstanceType.empty() && Cd.InstanceType != Tgt.Type)) {
          Mismatch =
              "the replacement's first parameter is not the instance (" + Tgt.Type + ", or object)";
          continue;
        }
        bool WantsPointer = Cd.Instance == Receiver::Pointer;
        if (ValueType && *ValueType != WantsPointer) {
          Mismatch = *ValueType ? Tgt.Type +
                                      " is a value type: the replacement takes its "
                                      "instance as `ref " +
                                      Tgt.Type + "`"
                                : Tgt.Type +
                                      " is a reference type: the replacement takes its "
                                      "instance as " +
                                      Tgt.Type + " or object, not by reference";
          continue;
        }
        D.Instance = Cd.Instance;
        for (const TypeSig &T : S.Params) {
          D.ArgTypes.emplace_back();
          encodeTypeSig(withoutModifiers(T), D.ArgTypes.back());
        }
      }
      D.Candidate = int(I);
      return;
    }
    std::string Shape;
    raw_string_ostream OS(Shape);
    OS << Return << " (";
    if (S.hasThis())
      OS << "instance" << (Params.empty() ? "" : ", ");
    for (size_t I = 0; I < Params.size(); ++I)
      OS << (I ? ", " : "") << Params[I];
    OS << ')';
    D.Why = "no replacement fits " + OS.str() + (Mismatch.empty() ? "" : " (" + Mismatch + ")") +
            "; the replacements are " + candidateList();
  }

  /// Whether \p Parent (a TypeDef or TypeRef of \p M) is a value type; nullopt when its
  /// assembly cannot be found.
  std::optional<bool> isValueType(const Module &M, Token Parent) {
    if (tokenTable(Parent) == TableId::TypeDef)
      return isValueTypeDef(M, tokenRow(Parent));
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

  /// The MemberRef through which the woven module calls \p Cd.
  Expected<Token> importReplacement(ModuleContext &MC, const Candidate &Cd) {
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
  Expected<TypeSig> importType(ModuleContext &MC, const TypeSig &T, unsigned Depth) {
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

  Expected<Token> importTypeToken(ModuleContext &MC, Token T, unsigned Depth) {
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
        Info.Version[I] =
            uint16_t(R->get(TableId::AssemblyRef, A, AssemblyRefCol::MajorVersion + I));
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
  AssemblyRefInfo replacementAssembly() {
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

  PassOptions Options;
  Target Tgt;
  std::string Path, TypeName, KeyToken;
  std::unique_ptr<pe::Image> Image;
  std::unique_ptr<Module> R; // the replacement's module
  uint32_t TypeRow = 0;
  std::vector<Candidate> Candidates;
  std::unique_ptr<AssemblyResolver> Resolver;
  Token ReplacementType = 0;
  /// By the token a call instruction carries; read-only once beginModule is done.
  DenseMap<Token, Decision> Decisions;
};

} // namespace

PassInfo interceptCallPass() {
  return {"intercept-call",
          "Redirects call and callvirt of one method to a user's public static replacement "
          "(same parameters, the instance first for an instance method)",
          {{"target", "the method: Namespace.Type::Method, optionally with ILAsm parameter types "
                      "(Namespace.Type::Method(string)) to pick one overload"},
           {"replacement-assembly", "the assembly holding the replacement (.dll), relative to "
                                    "the spec file"},
           {"replacement-type", "the type holding the replacement (Namespace.Type)"},
           {"replacement-method", "the replacement's name (default: the target's)"}},
          [](const PassOptions &O) -> Expected<std::unique_ptr<Pass>> {
            return std::make_unique<InterceptCall>(O);
          }};
}

} // namespace weft::passes
