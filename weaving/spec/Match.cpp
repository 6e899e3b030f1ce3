//===- weaving/spec/Match.cpp - Which methods a spec chooses --------------===//
//
// select() runs on every module the weaver or the profiler sees, the largest being
// System.Private.CoreLib, so the facts rules ask about are worked out once per module (per type:
// names, compiler-generated, state machine; per method and type: the attribute types they carry)
// and each rule only pays for the keys it uses, the costly ones (parameter types) last.
//
//===----------------------------------------------------------------------===//
#include "metadata/CustomAttribute.h"
#include "metadata/Module.h"
#include "metadata/Names.h"
#include "metadata/Signature.h"
#include "support/Error.h"
#include "weaving/spec/Spec.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <optional>

using namespace llvm;
using namespace weft::metadata;

namespace weft::spec {
namespace {
/// The name rules' "assembly" globs match: the assembly's, or the module's for a module without
/// a manifest.
StringRef assemblyName(const Module &M) {
  return M.rowCount(TableId::Assembly) ? M.getString(M.get(TableId::Assembly, 1, AssemblyCol::Name))
         : M.rowCount(TableId::Module) ? M.getString(M.get(TableId::Module, 1, ModuleCol::Name))
                                       : StringRef();
}
} // namespace

namespace {

// MethodDef flags and implementation flags (ECMA-335 II.23.1.10-11).
constexpr uint16_t MethodAccessMask = 0x7, MethodStatic = 0x10;
constexpr uint16_t CodeTypeMask = 0x3; // 0: IL

// Enclosing-type and resolution-scope chains longer than this are taken as cycles.
constexpr unsigned MaxNesting = 64;

constexpr StringLiteral CompilerGeneratedName =
    "System.Runtime.CompilerServices.CompilerGeneratedAttribute";

bool admits(Mode M, bool Fact) { return M == Mode::Include || (M == Mode::Only) == Fact; }

/// Names as stored (no ILAsm quoting): what the globs of a spec are written against.
class RawNames {
public:
  explicit RawNames(const Module &M) : M(M) {}

  /// "Ns.Outer/Inner" for a TypeDef, TypeRef, or the generic type of a TypeSpec.
  std::string fullName(Token T) const {
    std::string Out;
    raw_string_ostream OS(Out);
    write(OS, T, 0);
    return Out;
  }

private:
  void write(raw_ostream &OS, Token T, unsigned Depth) const {
    if (Depth > MaxNesting || !M.isValidToken(T))
      return;
    uint32_t Row = tokenRow(T);
    switch (tokenTable(T)) {
    case TableId::TypeDef:
      if (uint32_t Outer = M.enclosingType(Row)) {
        write(OS, makeToken(TableId::TypeDef, Outer), Depth + 1);
        OS << '/';
      } else {
        qualified(OS, M.getString(M.get(TableId::TypeDef, Row, TypeDefCol::TypeNamespace)));
      }
      OS << M.getString(M.get(TableId::TypeDef, Row, TypeDefCol::TypeName));
      return;
    case TableId::TypeRef: {
      Token Scope = M.getToken(TableId::TypeRef, Row, TypeRefCol::ResolutionScope);
      if (tokenTable(Scope) == TableId::TypeRef && tokenRow(Scope)) {
        write(OS, Scope, Depth + 1);
        OS << '/';
      } else {
        qualified(OS, M.getString(M.get(TableId::TypeRef, Row, TypeRefCol::TypeNamespace)));
      }
      OS << M.getString(M.get(TableId::TypeRef, Row, TypeRefCol::TypeName));
      return;
    }
    case TableId::TypeSpec: {
      // Generic attributes: the constructor belongs to Attr`1<int32>; rules name Attr`1.
      Expected<TypeSig> Sig = typeSpecSig(M, Row);
      if (!Sig) {
        consumeError(Sig.takeError());
        return;
      }
      if (Sig->Kind == ElementType::GenericInst && !Sig->Args.empty())
        write(OS, Sig->Args.front().TypeToken, Depth + 1);
      return;
    }
    default: return;
    }
  }
  static void qualified(raw_ostream &OS, StringRef Namespace) {
    if (!Namespace.empty())
      OS << Namespace << '.';
  }

  const Module &M;
};

/// The attribute types each method and type carries, as small ids into Names.
struct AttributeIndex {
  std::vector<std::string> Names;
  /// MethodDef row R carries MethodIds[MethodBegin[R] .. MethodBegin[R + 1]); same for types.
  std::vector<uint32_t> MethodBegin, MethodIds, TypeBegin, TypeIds;
  uint32_t CompilerGenerated = UINT32_MAX;

  ArrayRef<uint32_t> ofMethod(uint32_t Row) const { return slice(MethodBegin, MethodIds, Row); }
  ArrayRef<uint32_t> ofType(uint32_t Row) const { return slice(TypeBegin, TypeIds, Row); }

  void build(const Module &M) {
    MethodBegin.assign(M.rowCount(TableId::MethodDef) + 2, 0);
    TypeBegin.assign(M.rowCount(TableId::TypeDef) + 2, 0);
    uint32_t Rows = M.rowCount(TableId::CustomAttribute);
    // Counted first, then placed: the table is sorted by parent, but nothing here relies on it.
    std::vector<Token> Parents(Rows + 1);
    for (uint32_t R = 1; R <= Rows; ++R) {
      Token P = M.getToken(TableId::CustomAttribute, R, CustomAttributeCol::Parent);
      Parents[R] = P;
      if (std::vector<uint32_t> *Begin = beginsFor(P))
        ++(*Begin)[tokenRow(P) + 1];
    }
    for (auto *Begin : {&MethodBegin, &TypeBegin})
      for (size_t I = 1; I < Begin->size(); ++I)
        (*Begin)[I] += (*Begin)[I - 1];
    MethodIds.resize(MethodBegin.back());
    TypeIds.resize(TypeBegin.back());

    std::vector<uint32_t> MethodNext = MethodBegin, TypeNext = TypeBegin;
    RawNames Raw(M);
    DenseMap<Token, uint32_t> ByCtor;
    StringMap<uint32_t> ByName;
    for (uint32_t R = 1; R <= Rows; ++R) {
      Token P = Parents[R];
      std::vector<uint32_t> *Begin = beginsFor(P);
      if (!Begin)
        continue;
      Token Ctor = M.getToken(TableId::CustomAttribute, R, CustomAttributeCol::Type);
      auto [It, New] = ByCtor.try_emplace(Ctor, 0);
      if (New) {
        std::string Name = Raw.fullName(customAttributeType(M, Ctor));
        auto [NameIt, NewName] = ByName.try_emplace(Name, uint32_t(Names.size()));
        if (NewName) {
          if (Name == CompilerGeneratedName)
            CompilerGenerated = uint32_t(Names.size());
          Names.push_back(std::move(Name));
        }
        It->second = NameIt->second;
      }
      if (Begin == &MethodBegin)
        MethodIds[MethodNext[tokenRow(P)]++] = It->second;
      else
        TypeIds[TypeNext[tokenRow(P)]++] = It->second;
    }
  }

private:
  /// The Begin vector for attributes of \p P, if it is a method or type row.
  std::vector<uint32_t> *beginsFor(Token P) {
    std::vector<uint32_t> *Begin = tokenTable(P) == TableId::MethodDef ? &MethodBegin
                                   : tokenTable(P) == TableId::TypeDef ? &TypeBegin
                                                                       : nullptr;
    return Begin && tokenRow(P) && tokenRow(P) + 1 < Begin->size() ? Begin : nullptr;
  }
  static ArrayRef<uint32_t> slice(const std::vector<uint32_t> &Begin,
                                  const std::vector<uint32_t> &Ids, uint32_t Row) {
    if (Row == 0 || Row + 1 >= Begin.size())
      return {};
    return ArrayRef<uint32_t>(Ids).slice(Begin[Row], Begin[Row + 1] - Begin[Row]);
  }
};

struct TypeFacts {
  StringRef Name;      // as stored; "Outer/Inner" for nested types once nestedName() ran
  StringRef Namespace; // of the outermost enclosing type
  bool CompilerGenerated = false;
  bool StateMachine = false;
  bool HasNestedName = false;
};

/// What the rules ask about one method.
struct MethodFacts {
  uint32_t Row = 0, Type = 0;
  StringRef Name;
  uint8_t Access = 0;
  bool Static = false, Constructor = false, Accessor = false, MoveNext = false,
       CompilerGenerated = false;
  /// The signature, decoded for the first rule that asks about parameters.
  std::optional<MethodSig> Sig;
  /// Parameter types as weft dump prints them and with generic parameters by number (empty when
  /// the same), printed as rules ask for them.
  struct ParamText {
    bool Done = false;
    std::string Named, Numbered;
  };
  std::vector<ParamText> Params;
};

bool methodHasBody(const Module &M, uint32_t Row) {
  return M.get(TableId::MethodDef, Row, MethodDefCol::RVA) != 0 &&
         (M.get(TableId::MethodDef, Row, MethodDefCol::ImplFlags) & CodeTypeMask) == 0;
}

class Matcher {
public:
  Matcher(ArrayRef<Rule> Rules, const Module &M) : Rules(Rules), M(M), Names(M), Saver(Alloc) {
    bool NeedKinds = false, NeedAttributes = false;
    for (const Rule &R : Rules) {
      NeedKinds |= R.CompilerGenerated != Mode::Include || R.StateMachines != Mode::Include;
      NeedAttributes |= !R.Attributes.empty() || !R.TypeAttributes.empty();
    }
    if (NeedKinds || NeedAttributes)
      Attributes.build(M);
    typeFacts(NeedKinds);

    StringRef Assembly = assemblyName(M);
    for (const Rule &R : Rules) {
      RuleState &St = State.emplace_back();
      St.AssemblyMatches = !R.Assembly || R.Assembly->match(Assembly);
      St.TypeLevel = R.Namespace || R.Type || !R.TypeAttributes.empty();
      if (St.TypeLevel)
        St.TypeMatch.assign(Types.size(), 0);
      for (const auto &[Globs, Out] : {std::pair{&R.Attributes, &St.AttributeMatches},
                                       std::pair{&R.TypeAttributes, &St.TypeAttributeMatches}})
        for (const Glob &G : *Globs) {
          BitVector &B = Out->emplace_back(Attributes.Names.size());
          for (size_t I = 0; I < Attributes.Names.size(); ++I)
            if (G.match(Attributes.Names[I]))
              B.set(I);
        }
    }
  }

  bool hasBody(uint32_t Row) const { return methodHasBody(M, Row); }

  void facts(uint32_t Row, MethodFacts &F) const {
    F.Row = Row;
    F.Type = M.declaringTypeOfMethod(Row);
    uint16_t Flags = uint16_t(M.get(TableId::MethodDef, Row, MethodDefCol::Flags));
    F.Name = M.getString(M.get(TableId::MethodDef, Row, MethodDefCol::Name));
    F.Access = Flags & MethodAccessMask;
    F.Static = Flags & MethodStatic;
    F.Constructor = F.Name == ".ctor" || F.Name == ".cctor";
    F.Accessor = M.methodSemanticsOf(Row) != 0;
    const TypeFacts &T = Types[F.Type < Types.size() ? F.Type : 0];
    F.MoveNext = T.StateMachine && F.Name == "MoveNext";
    // The body of top-level statements is the user's program, though its name starts with '<'
    // and its synthesized class carries [CompilerGenerated].
    bool TopLevelMain = F.Name == "<Main>$";
    F.CompilerGenerated =
        !F.MoveNext && (carries(Attributes.ofMethod(Row)) ||
                        (!TopLevelMain && (T.CompilerGenerated || F.Name.startswith("<"))));
    F.Sig.reset();
  }

  Expected<bool> matches(size_t RuleIndex, MethodFacts &F) {
    const Rule &R = Rules[RuleIndex];
    RuleState &St = State[RuleIndex];
    if (!(R.Visibility >> F.Access & 1) || (R.Static && *R.Static != F.Static) ||
        !admits(R.Constructors, F.Constructor) || !admits(R.Accessors, F.Accessor) ||
        !admits(R.StateMachines, F.MoveNext) ||
        (!F.MoveNext && !admits(R.CompilerGenerated, F.CompilerGenerated)) || !St.AssemblyMatches)
      return false;
    if (St.TypeLevel && !typeMatches(R, St, F.Type))
      return false;
    if (R.Method && !R.Method->match(F.Name))
      return false;
    if (!carriesAll(St.AttributeMatches, Attributes.ofMethod(F.Row)))
      return false;
    if (R.HasParameters) {
      if (!F.Sig)
        if (Error E = signature(F))
          return addContext(std::move(E), R.Label);
      size_t Need = R.Parameters.size(), Have = F.Sig->Params.size();
      if (R.AnyRest ? Have < Need : Have != Need)
        return false;
      for (size_t I = 0; I < Need; ++I) {
        const MethodFacts::ParamText &T = paramText(F, I);
        if (!R.Parameters[I].match(T.Named) &&
            (T.Numbered.empty() || !R.Parameters[I].match(T.Numbered)))
          return false;
      }
    }
    return true;
  }

private:
  struct RuleState {
    bool AssemblyMatches = true, TypeLevel = false;
    std::vector<int8_t> TypeMatch; // per TypeDef row: 0 not yet known, 1 matches, -1 does not
    std::vector<BitVector> AttributeMatches, TypeAttributeMatches; // per glob, over attribute ids
  };

  bool carries(ArrayRef<uint32_t> Ids) const {
    return Attributes.CompilerGenerated != UINT32_MAX &&
           is_contained(Ids, Attributes.CompilerGenerated);
  }
  /// Every glob matches one of the attributes \p Ids.
  static bool carriesAll(ArrayRef<BitVector> Globs, ArrayRef<uint32_t> Ids) {
    for (const BitVector &G : Globs)
      if (none_of(Ids, [&](uint32_t Id) { return G.test(Id); }))
        return false;
    return true;
  }

  void typeFacts(bool NeedKinds) {
    uint32_t N = M.rowCount(TableId::TypeDef);
    Types.resize(N + 1); // row 0: methods no type owns
    for (uint32_t Row = 1; Row <= N; ++Row) {
      TypeFacts &T = Types[Row];
      T.Name = M.getString(M.get(TableId::TypeDef, Row, TypeDefCol::TypeName));
      uint32_t Outer = Row;
      for (unsigned D = 0; D < MaxNesting; ++D)
        if (uint32_t E = M.enclosingType(Outer); E && E <= N)
          Outer = E;
        else
          break;
      T.Namespace = M.getString(M.get(TableId::TypeDef, Outer, TypeDefCol::TypeNamespace));
    }
    if (!NeedKinds)
      return;

    BitVector Enumerator(N + 1);
    for (uint32_t R = 1; R <= M.rowCount(TableId::InterfaceImpl); ++R) {
      uint32_t Class = M.get(TableId::InterfaceImpl, R, InterfaceImplCol::Class);
      Token I = M.getToken(TableId::InterfaceImpl, R, InterfaceImplCol::Interface);
      if (Class && Class <= N && isStateMachineInterface(I))
        Enumerator.set(Class);
    }
    // Enclosing types usually come first, but nothing requires it: resolve through the chain.
    std::vector<int8_t> Done(N + 1, 0);
    for (uint32_t Row = 1; Row <= N; ++Row)
      compilerGenerated(Row, Done, 0);
    for (uint32_t Row = 1; Row <= N; ++Row) {
      TypeFacts &T = Types[Row];
      T.StateMachine = Enumerator.test(Row) && M.enclosingType(Row) &&
                       (T.Name.startswith("<") || carries(Attributes.ofType(Row)));
    }
  }

  bool compilerGenerated(uint32_t Row, std::vector<int8_t> &Done, unsigned Depth) {
    TypeFacts &T = Types[Row];
    if (Done[Row] || Depth > MaxNesting)
      return T.CompilerGenerated;
    Done[Row] = 1;
    // <Module> holds global functions and module initialisers, written by people.
    bool Own = (T.Name.startswith("<") && !(T.Name == "<Module>" && !M.enclosingType(Row))) ||
               carries(Attributes.ofType(Row));
    uint32_t Outer = M.enclosingType(Row);
    T.CompilerGenerated =
        Own || (Outer && Outer < Types.size() && compilerGenerated(Outer, Done, Depth + 1));
    return T.CompilerGenerated;
  }

  bool isStateMachineInterface(Token I) const {
    StringRef Ns, Name;
    if (!M.isValidToken(I))
      return false;
    if (tokenTable(I) == TableId::TypeRef) {
      Ns = M.getString(M.get(TableId::TypeRef, tokenRow(I), TypeRefCol::TypeNamespace));
      Name = M.getString(M.get(TableId::TypeRef, tokenRow(I), TypeRefCol::TypeName));
    } else if (tokenTable(I) == TableId::TypeDef) {
      Ns = M.getString(M.get(TableId::TypeDef, tokenRow(I), TypeDefCol::TypeNamespace));
      Name = M.getString(M.get(TableId::TypeDef, tokenRow(I), TypeDefCol::TypeName));
    } else {
      return false; // generic instances: state machines implement the plain interfaces too
    }
    return (Ns == "System.Runtime.CompilerServices" && Name == "IAsyncStateMachine") ||
           (Ns == "System.Collections" && Name == "IEnumerator");
  }

  /// "Outer/Inner" for nested types, made on first use.
  StringRef nestedName(uint32_t Row, unsigned Depth = 0) {
    TypeFacts &T = Types[Row];
    if (T.HasNestedName || Depth > MaxNesting)
      return T.Name;
    T.HasNestedName = true;
    if (uint32_t Outer = M.enclosingType(Row); Outer && Outer < Types.size())
      T.Name = Saver.save(nestedName(Outer, Depth + 1) + "/" + T.Name);
    return T.Name;
  }

  bool typeMatches(const Rule &R, RuleState &St, uint32_t Type) {
    if (Type >= St.TypeMatch.size())
      Type = 0;
    int8_t &Known = St.TypeMatch[Type];
    if (!Known) {
      const TypeFacts &T = Types[Type];
      bool Ok = (!R.Namespace || R.Namespace->match(T.Namespace)) &&
                (!R.Type || R.Type->match(Type ? nestedName(Type) : StringRef())) &&
                carriesAll(St.TypeAttributeMatches, Attributes.ofType(Type));
      Known = Ok ? 1 : -1;
    }
    return Known > 0;
  }

  Error signature(MethodFacts &F) const {
    Expected<MethodSig> Sig = methodDefSig(M, F.Row);
    if (!Sig)
      return addContext(Sig.takeError(), "parameters of " + methodName(F));
    F.Sig = std::move(*Sig);
    F.Params.assign(F.Sig->Params.size(), {});
    return Error::success();
  }

  const MethodFacts::ParamText &paramText(MethodFacts &F, size_t I) const {
    MethodFacts::ParamText &T = F.Params[I];
    if (T.Done)
      return T;
    T.Done = true;
    NamePrinter P(M);
    {
      raw_string_ostream OS(T.Named);
      P.type(OS, F.Sig->Params[I], GenericContext{F.Type, F.Row});
    }
    if (StringRef(T.Named).contains('!')) {
      raw_string_ostream OS(T.Numbered);
      P.type(OS, F.Sig->Params[I], GenericContext{});
      OS.flush();
      if (T.Numbered == T.Named)
        T.Numbered.clear();
    }
    return T;
  }

  std::string methodName(const MethodFacts &F) const {
    std::string S;
    raw_string_ostream OS(S);
    if (F.Type)
      OS << Names.fullName(makeToken(TableId::TypeDef, F.Type)) << "::";
    OS << F.Name << " (" << format_hex(makeToken(TableId::MethodDef, F.Row), 10) << ")";
    return OS.str();
  }

  ArrayRef<Rule> Rules;
  const Module &M;
  RawNames Names;
  BumpPtrAllocator Alloc;
  StringSaver Saver;
  AttributeIndex Attributes;
  std::vector<TypeFacts> Types;
  std::vector<RuleState> State;
};

/// Whether \p R takes every method with a body (as `--pass` does), so that no method's facts
/// need be worked out.
bool matchesEverything(const Rule &R) {
  return !R.Exclude && !R.Assembly && !R.Namespace && !R.Type && !R.Method && !R.HasParameters &&
         R.Attributes.empty() && R.TypeAttributes.empty() && R.Visibility == 0xFF && !R.Static &&
         R.CompilerGenerated == Mode::Include && R.Constructors == Mode::Include &&
         R.Accessors == Mode::Include && R.StateMachines == Mode::Include;
}

/// Every use for every method with a body (the uses in the order the spec names them).
Selection selectEverywhere(Selection Out, ArrayRef<const PassUse *> Uses, const Module &M) {
  SmallVector<uint16_t, 4> All;
  for (size_t U = 0; U < Uses.size(); ++U) {
    All.push_back(uint16_t(U));
    Out.Uses.push_back(*Uses[U]);
  }
  for (uint32_t Row = 1; Row <= Out.methodCount(); ++Row)
    if (methodHasBody(M, Row))
      Out.setPasses(Row, All);
  return Out;
}

} // namespace

namespace {
Expected<Selection> selectRules(ArrayRef<Rule> Rules, const Module &M);
} // namespace

Expected<Selection> select(const Spec &S, const Module &M) { return selectRules(S.Rules, M); }

Expected<Selection> selectTracepoints(const Spec &S, const Module &M, bool NamedAssemblyOnly) {
  std::vector<Rule> Rules;
  for (const Tracepoint &T : S.tracepoints())
    if (!NamedAssemblyOnly || T.Match.Assembly)
      Rules.push_back(T.Match);
  return selectRules(Rules, M);
}

namespace {
Expected<Selection> selectRules(ArrayRef<Rule> Rules, const Module &M) {
  // No rule that selects can match this assembly: nothing to learn about its methods (the
  // runtime profiler asks this of every module the runtime loads).
  StringRef Assembly = assemblyName(M);
  if (llvm::none_of(Rules, [&](const Rule &R) {
        return !R.Exclude && !R.Passes.empty() && (!R.Assembly || R.Assembly->match(Assembly));
      })) {
    Selection Out;
    Out.setMethodCount(M.rowCount(TableId::MethodDef));
    return std::move(Out);
  }

  // The distinct uses, in the order the spec first names them, and which of them each rule names.
  std::vector<const PassUse *> Distinct;
  StringMap<uint32_t> ByKey;
  std::vector<SmallVector<uint32_t, 4>> RuleUses(Rules.size());
  for (size_t I = 0; I < Rules.size(); ++I)
    for (const PassUse &U : Rules[I].Passes) {
      auto [It, New] = ByKey.try_emplace(U.key(), uint32_t(Distinct.size()));
      if (New)
        Distinct.push_back(&U);
      if (!is_contained(RuleUses[I], It->second))
        RuleUses[I].push_back(It->second);
    }
  if (Distinct.size() > UINT16_MAX + 1u)
    return plainError("the spec names " + Twine(Distinct.size()) +
                      " different pass uses; at most 65536 are supported");

  Selection Out;
  uint32_t Methods = M.rowCount(TableId::MethodDef);
  Out.setMethodCount(Methods);
  if (Distinct.empty())
    return std::move(Out);
  if (std::all_of(Rules.begin(), Rules.end(), matchesEverything))
    return selectEverywhere(std::move(Out), Distinct, M);

  Matcher X(Rules, M);
  std::vector<uint8_t> Mark(Distinct.size(), 0), Used(Distinct.size(), 0);
  SmallVector<uint32_t, 16> Got;
  MethodFacts F;
  for (uint32_t Row = 1; Row <= Methods; ++Row) {
    if (!X.hasBody(Row))
      continue;
    X.facts(Row, F);
    Got.clear();
    for (size_t I = 0; I < Rules.size(); ++I) {
      if (Rules[I].Exclude)
        continue;
      Expected<bool> Ok = X.matches(I, F);
      if (!Ok)
        return Ok.takeError();
      if (*Ok)
        for (uint32_t U : RuleUses[I])
          if (!Mark[U]) {
            Mark[U] = 1;
            Got.push_back(U);
          }
    }
    if (Got.empty())
      continue;
    for (uint32_t U : Got)
      Mark[U] = 0;
    bool Excluded = false;
    for (size_t I = 0; I < Rules.size() && !Excluded; ++I) {
      if (!Rules[I].Exclude)
        continue;
      Expected<bool> Ok = X.matches(I, F);
      if (!Ok)
        return Ok.takeError();
      Excluded = *Ok;
    }
    if (Excluded)
      continue;
    std::sort(Got.begin(), Got.end());
    for (uint32_t U : Got)
      Used[U] = 1;
    SmallVector<uint16_t, 16> List(Got.begin(), Got.end());
    Out.setPasses(Row, List);
  }

  // Uses no method got are dropped; indices shift down, which keeps each list sorted.
  std::vector<uint16_t> NewIndex(Distinct.size());
  for (size_t U = 0; U < Distinct.size(); ++U)
    if (Used[U]) {
      NewIndex[U] = uint16_t(Out.Uses.size());
      Out.Uses.push_back(*Distinct[U]);
    }
  if (Out.Uses.size() != Distinct.size())
    Out.renumber(NewIndex);
  return std::move(Out);
}
} // namespace

void Selection::setPasses(uint32_t Row, ArrayRef<uint16_t> Sorted) {
  // Neighbouring methods mostly have the list the last one got.
  if (ArrayRef<uint16_t>(Lists[LastList]) != Sorted) {
    auto [It, New] = ListNumbers.try_emplace(std::vector<uint16_t>(Sorted.begin(), Sorted.end()),
                                             uint32_t(Lists.size()));
    if (Sorted.empty())
      It->second = 0;
    else if (New)
      Lists.emplace_back(Sorted.begin(), Sorted.end());
    LastList = It->second;
  }
  ListOf[Row - 1] = LastList;
}

void Selection::renumber(ArrayRef<uint16_t> NewIndex) {
  for (auto &L : Lists)
    for (uint16_t &U : L)
      U = NewIndex[U];
  ListNumbers.clear(); // the lists changed; setPasses finds them no more
}

} // namespace weft::spec
