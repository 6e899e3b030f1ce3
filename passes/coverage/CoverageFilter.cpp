//===- passes/coverage/CoverageFilter.cpp - What coverage leaves out ------===//
#include "passes/coverage/CoverageFilter.h"

#include "metadata/CustomAttribute.h"
#include "metadata/Signature.h"
#include "passes/coverage/CoverageBranches.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;
using namespace weft::metadata;

namespace weft::passes {

namespace {

constexpr const char *CompilerGenerated =
    "System.Runtime.CompilerServices.CompilerGeneratedAttribute";
constexpr const char *GeneratedCode = "System.CodeDom.Compiler.GeneratedCodeAttribute";

/// The raw full name of a TypeDef or TypeRef as Cecil spells it ("Ns.Outer/Inner"), which is
/// what coverlet's filters and attribute names are matched against.
std::string fullTypeName(const Module &M, Token T, unsigned Depth = 0) {
  if (!M.isValidToken(T) || Depth > 64)
    return "";
  std::string Outer;
  StringRef Ns, Name;
  if (tokenTable(T) == TableId::TypeDef) {
    uint32_t Row = tokenRow(T);
    Ns = M.getString(M.get(TableId::TypeDef, Row, TypeDefCol::TypeNamespace));
    Name = M.getString(M.get(TableId::TypeDef, Row, TypeDefCol::TypeName));
    if (uint32_t Enclosing = M.enclosingType(Row))
      Outer = fullTypeName(M, makeToken(TableId::TypeDef, Enclosing), Depth + 1);
  } else if (tokenTable(T) == TableId::TypeRef) {
    uint32_t Row = tokenRow(T);
    Ns = M.getString(M.get(TableId::TypeRef, Row, TypeRefCol::TypeNamespace));
    Name = M.getString(M.get(TableId::TypeRef, Row, TypeRefCol::TypeName));
    Token Scope = M.getToken(TableId::TypeRef, Row, TypeRefCol::ResolutionScope);
    if (tokenTable(Scope) == TableId::TypeRef)
      Outer = fullTypeName(M, Scope, Depth + 1);
  } else if (tokenTable(T) == TableId::TypeSpec) {
    // A generic instance: the generic type's name ("IEnumerator`1").
    Expected<TypeSig> Sig = typeSpecSig(M, tokenRow(T));
    if (!Sig) {
      consumeError(Sig.takeError());
      return "";
    }
    if (Sig->Kind == ElementType::GenericInst && !Sig->Args.empty())
      return fullTypeName(M, Sig->Args.front().TypeToken, Depth + 1);
    return "";
  } else {
    return "";
  }
  std::string Out = Outer.empty() ? "" : Outer + "/";
  if (!Ns.empty())
    Out += (Ns + ".").str();
  return Out + Name.str();
}

/// Whether a wildcard of coverlet's filters matches the whole of \p Text: `*` any characters, `?`
/// the character before it optional, everything else itself. The wildcard's characters are the
/// states of an automaton, all of whose states are followed at once: time in the product of the
/// two lengths, however many stars.
bool wildcardMatches(StringRef Wildcard, StringRef Text, bool IgnoreCase) {
  struct Step {
    char C;
    bool Optional, Star;
  };
  SmallVector<Step, 32> Steps;
  for (char C : Wildcard) {
    if (C == '?' && !Steps.empty())
      Steps.back().Optional = true;
    else
      Steps.push_back({C, C == '*', C == '*'});
  }
  auto Same = [&](char A, char B) { return IgnoreCase ? toLower(A) == toLower(B) : A == B; };
  // On[I]: the first I steps can match the text read so far.
  SmallVector<bool, 33> On(Steps.size() + 1, false), Next(Steps.size() + 1, false);
  auto Close = [&](SmallVectorImpl<bool> &States) {
    for (size_t I = 0; I < Steps.size(); ++I)
      if (States[I] && Steps[I].Optional)
        States[I + 1] = true;
  };
  On[0] = true;
  Close(On);
  for (char C : Text) {
    std::fill(Next.begin(), Next.end(), false);
    for (size_t I = 0; I < Steps.size(); ++I)
      if (On[I] && (Steps[I].Star || Same(Steps[I].C, C)))
        Next[Steps[I].Star ? I : I + 1] = true;
    Close(Next);
    std::swap(On, Next);
  }
  return On.back();
}

/// `*` within one name of a path, without case.
bool nameMatches(StringRef Pattern, StringRef Name) {
  size_t Star = Pattern.find('*');
  if (Star == StringRef::npos)
    return Pattern.equals_insensitive(Name);
  StringRef Head = Pattern.take_front(Star);
  if (!Name.startswith_insensitive(Head))
    return false;
  Pattern = Pattern.drop_front(Star + 1);
  Name = Name.drop_front(Head.size());
  for (size_t I = 0; I <= Name.size(); ++I)
    if (nameMatches(Pattern, Name.drop_front(I)))
      return true;
  return false;
}

/// A path's names, its root (a drive, a leading separator) dropped, as FileSystemGlobbing
/// compares them; both separators split.
SmallVector<StringRef, 16> pathNames(StringRef Path) {
  if (Path.size() >= 2 && Path[1] == ':' && isAlpha(Path[0]))
    Path = Path.drop_front(2);
  SmallVector<StringRef, 16> Parts;
  SplitString(Path, Parts, "/\\");
  llvm::erase_if(Parts, [](StringRef P) { return P == "."; });
  return Parts;
}

bool namesMatch(ArrayRef<StringRef> Glob, ArrayRef<StringRef> Path) {
  if (Glob.empty())
    return Path.empty();
  if (Glob.front() == "**") {
    // The last `**` takes every file below (as "**/*"); elsewhere any number of folders.
    if (Glob.size() == 1)
      return !Path.empty();
    for (size_t Skip = 0; Skip <= Path.size(); ++Skip)
      if (namesMatch(Glob.drop_front(), Path.drop_front(Skip)))
        return true;
    return false;
  }
  return !Path.empty() && nameMatches(Glob.front(), Path.front()) &&
         namesMatch(Glob.drop_front(), Path.drop_front());
}

/// The filters of option \p Key, each checked.
Error readFilters(const PassOptions &O, StringRef Key, std::vector<TypeFilter> &Out) {
  for (const auto &[K, V] : O.values()) {
    if (K != Key || V.empty())
      continue;
    Expected<TypeFilter> F = TypeFilter::parse(V);
    if (!F)
      return O.error(Key + " '" + V + "': " + toString(F.takeError()));
    Out.push_back(std::move(*F));
  }
  return Error::success();
}

bool isLdarg(il::Opcode Op) {
  using il::Opcode;
  return Op == Opcode::Ldarg_0 || Op == Opcode::Ldarg_1 || Op == Opcode::Ldarg_2 ||
         Op == Opcode::Ldarg_3 || Op == Opcode::Ldarg_S || Op == Opcode::Ldarg;
}

} // namespace

// --- TypeFilter ---

Expected<TypeFilter> TypeFilter::parse(StringRef Text) {
  auto Bad = [&](const Twine &Why) {
    return createStringError(inconvertibleErrorCode(),
                             "not a filter of the form [Assembly]Type (" + Why + ")");
  };
  if (!Text.startswith("["))
    return Bad("it must start with '['");
  if (Text.count('[') != 1 || Text.count(']') != 1)
    return Bad("one '[' and one ']'");
  size_t Close = Text.find(']');
  if (Close == 1)
    return Bad("the assembly is empty");
  if (Close + 1 == Text.size())
    return Bad("the type is empty");
  for (char C : Text)
    if (!(isAlnum(C) || C == '_' || C == '*' || C == '?' || C == '.' || C == '[' || C == ']' ||
          uint8_t(C) >= 0x80))
      return Bad("'" + Twine(C) + "' is none of letters, digits, '_', '.', '*' and '?'");
  if (Text[1] == '?' || Text[Close + 1] == '?')
    return Bad("'?' makes the character before it optional, and has none");
  TypeFilter F;
  F.Text = Text.str();
  F.AssemblyPart = Text.slice(1, Close).str();
  F.TypePart = Text.drop_front(Close + 1).str();
  return F;
}

bool TypeFilter::matches(StringRef Assembly, StringRef Type) const {
  return wildcardMatches(AssemblyPart, Assembly, false) && wildcardMatches(TypePart, Type, false);
}

bool TypeFilter::matchesModule(StringRef Assembly) const {
  return wildcardMatches(AssemblyPart, Assembly, true);
}

bool matchesFileGlob(StringRef Glob, StringRef Path) {
  SmallVector<StringRef, 16> G = pathNames(Glob), P = pathNames(Path);
  return !G.empty() && namesMatch(G, P);
}

// --- CoverageFilter ---

std::vector<PassOptionInfo> CoverageFilter::optionInfos() {
  return {{"include", "an [Assembly]Type filter (coverlet's syntax: * any characters, ? the one "
                      "before optional; repeatable): only the types it names are counted"},
          {"exclude", "an [Assembly]Type filter (repeatable): the types it names, and those they "
                      "enclose, are not counted (exclude wins over include)"},
          {"exclude-by-attribute",
           "an attribute (Name, NameAttribute or Namespace.NameAttribute; repeatable) whose "
           "assembly, types, methods and properties are not counted, besides "
           "ExcludeFromCodeCoverage and ExcludeFromCoverage"},
          {"exclude-by-file", "a source file glob (** any folders, * any characters in a name; "
                              "repeatable): methods in those files are not counted"},
          {"skip-auto-props", "true: auto-implemented property accessors and their initial "
                              "assignments are not counted"}};
}

Expected<CoverageFilter> CoverageFilter::create(const PassOptions &O) {
  CoverageFilter F;
  if (Error E = readFilters(O, "include", F.Include))
    return std::move(E);
  if (Error E = readFilters(O, "exclude", F.Exclude))
    return std::move(E);
  // As coverlet: a name without the suffix stands for both spellings.
  F.Attributes = {"ExcludeFromCoverageAttribute", "ExcludeFromCodeCoverageAttribute"};
  for (const auto &[K, V] : O.values()) {
    StringRef Value = StringRef(V).trim();
    if (K == "exclude-by-attribute" && !Value.empty()) {
      F.Attributes.push_back(Value.str());
      if (!Value.endswith("Attribute"))
        F.Attributes.push_back((Value + "Attribute").str());
    } else if (K == "exclude-by-file" && !Value.empty()) {
      F.Files.push_back(Value.str());
    }
  }
  StringRef Skip = O.get("skip-auto-props", "false");
  if (Skip != "true" && Skip != "false")
    return O.error("skip-auto-props must be true or false, not '" + Skip + "'");
  F.SkipAutoProps = Skip == "true";
  return std::move(F);
}

const std::string &CoverageFilter::attributeName(Token Ctor) {
  auto [It, New] = AttributeNames.try_emplace(Ctor);
  if (New)
    It->second = fullTypeName(*M, customAttributeType(*M, Ctor));
  return It->second;
}

bool CoverageFilter::isExcludeAttribute(Token Ctor) {
  auto [It, New] = ExcludingCtor.try_emplace(Ctor, false);
  if (New) {
    // Cecil's Name and FullName, which coverlet compares: "ObsoleteAttribute" and
    // "System.ObsoleteAttribute".
    Token Type = customAttributeType(*M, Ctor);
    const std::string &Full = attributeName(Ctor);
    StringRef Name;
    if (tokenTable(Type) == TableId::TypeDef && M->isValidToken(Type))
      Name = M->getString(M->get(TableId::TypeDef, tokenRow(Type), TypeDefCol::TypeName));
    else if (tokenTable(Type) == TableId::TypeRef && M->isValidToken(Type))
      Name = M->getString(M->get(TableId::TypeRef, tokenRow(Type), TypeRefCol::TypeName));
    It->second = !Full.empty() && llvm::any_of(Attributes, [&](const std::string &A) {
      return A == Name || A == Full;
    });
  }
  return It->second;
}

bool CoverageFilter::carriesAttribute(Token Parent, StringRef FullName) {
  for (uint32_t CA : M->customAttributes(Parent))
    if (attributeName(M->getToken(TableId::CustomAttribute, CA, CustomAttributeCol::Type)) ==
        FullName)
      return true;
  return false;
}

bool CoverageFilter::carriesExcludeAttribute(Token Parent, function_ref<bool()> IsStateMachine) {
  for (uint32_t CA : M->customAttributes(Parent)) {
    Token Ctor = M->getToken(TableId::CustomAttribute, CA, CustomAttributeCol::Type);
    if (!isExcludeAttribute(Ctor))
      continue;
    // The compiler marks its state machines generated; their code is the user's all the same.
    if (IsStateMachine && IsStateMachine()) {
      const std::string &Full = attributeName(Ctor);
      if (Full == CompilerGenerated || Full == GeneratedCode)
        continue;
    }
    return true;
  }
  return false;
}

bool CoverageFilter::isStateMachine(uint32_t TypeRow) {
  for (uint32_t I : M->interfaceImpls(TypeRow)) {
    std::string Name =
        fullTypeName(*M, M->getToken(TableId::InterfaceImpl, I, InterfaceImplCol::Interface));
    StringRef N(Name);
    if (N == "System.Runtime.CompilerServices.IAsyncStateMachine" ||
        N == "System.Collections.IEnumerator" ||
        N.startswith("System.Collections.Generic.IEnumerator`") ||
        N.startswith("System.Collections.Generic.IAsyncEnumerator`"))
      return true;
  }
  return false;
}

bool CoverageFilter::typeExcluded(uint32_t TypeRow, StringRef Assembly) {
  // A type's name is made, and its interfaces read, only when a filter or an attribute asks.
  auto Matches = [&](const std::vector<TypeFilter> &Filters, uint32_t T) {
    if (Filters.empty())
      return false;
    std::string Name = fullTypeName(*M, makeToken(TableId::TypeDef, T));
    return llvm::any_of(Filters, [&](const TypeFilter &F) { return F.matches(Assembly, Name); });
  };
  if (!Include.empty() && !Matches(Include, TypeRow))
    return true;
  unsigned Depth = 0;
  for (uint32_t T = TypeRow; T && Depth < 64; T = M->enclosingType(T), ++Depth)
    if (carriesExcludeAttribute(makeToken(TableId::TypeDef, T),
                                [&] { return isStateMachine(T); }) ||
        Matches(Exclude, T))
      return true;
  return false;
}

/// Whether method \p Row has a statement in the PDB. (coverlet leaves out every constructor the
/// compiler made; those without lines are in no report either way, and keep their counters.)
bool CoverageFilter::hasLines(uint32_t Row) const {
  if (!Pdb)
    return false;
  Expected<std::vector<pdb::SequencePoint>> Points = pdb::methodSequencePoints(*Pdb, Row);
  if (!Points) {
    consumeError(Points.takeError());
    return false;
  }
  return llvm::any_of(*Points, [](const pdb::SequencePoint &P) { return !P.isHidden(); });
}

void CoverageFilter::addSection(uint32_t Row, uint64_t Order) {
  if (!Pdb)
    return;
  Expected<std::vector<pdb::SequencePoint>> Points = pdb::methodSequencePoints(*Pdb, Row);
  if (!Points) {
    consumeError(Points.takeError()); // the map's own reading reports a broken PDB
    return;
  }
  const pdb::SequencePoint *First = nullptr, *Last = nullptr;
  for (const pdb::SequencePoint &P : *Points)
    if (!P.isHidden()) {
      if (!First)
        First = &P;
      Last = &P;
    }
  if (First)
    Sections.push_back({First->Document, std::min(First->StartLine, First->EndLine),
                        std::max(Last->StartLine, Last->EndLine), Order});
}

uint64_t CoverageFilter::instrumentOrder(uint32_t Row) const {
  // Types in coverlet's order; in each, its methods, then its constructors (Mono.Cecil.Rocks'
  // GetMethods and GetConstructors), each in row order.
  uint32_t Type = M->declaringTypeOfMethod(Row);
  StringRef Name = M->getString(M->get(TableId::MethodDef, Row, MethodDefCol::Name));
  bool Ctor = Name == ".ctor" || Name == ".cctor";
  return (uint64_t(Type < TypeOrder.size() ? TypeOrder[Type] : 0) << 33) | (uint64_t(Ctor) << 32) |
         Row;
}

bool CoverageFilter::inEarlierSection(uint32_t Row, const pdb::SequencePoint &P) const {
  uint64_t Order = instrumentOrder(Row);
  return llvm::any_of(Sections, [&](const Section &S) {
    return S.Order < Order && P.Document == S.Document && P.StartLine >= S.FirstLine &&
           P.StartLine <= S.LastLine;
  });
}

void CoverageFilter::excludeMethodWithItsCode(uint32_t Row) {
  MethodExcluded[Row] = true;
  if (Pdb && TypeOrder.empty())
    TypeOrder = coverletTypeOrder(*M);
  uint64_t Order = instrumentOrder(Row);
  // coverlet keeps the lines of a method it leaves out, not of a constructor.
  StringRef Name = M->getString(M->get(TableId::MethodDef, Row, MethodDefCol::Name));
  if (Name != ".ctor" && Name != ".cctor")
    addSection(Row, Order);
  // The state machine it hands its body to (AsyncStateMachine, IteratorStateMachine, ... name
  // it by its type): all its methods go, and MoveNext's lines are the method's.
  Token Method = makeToken(TableId::MethodDef, Row);
  for (uint32_t CA : M->customAttributes(Method)) {
    Expected<CustomAttributeValue> V = decodeCustomAttribute(*M, CA, nullptr);
    if (!V) {
      consumeError(V.takeError());
      continue;
    }
    for (const CAValue &A : V->Fixed) {
      if (A.Type.Kind != ElementType::SystemType || A.Null)
        continue;
      // "Ns.Outer+Inner[, Assembly]": a type of this module, nested with '+'.
      StringRef Name = StringRef(A.Text).split(',').first.trim();
      SmallVector<StringRef, 4> Parts;
      Name.split(Parts, '+');
      auto [Ns, Top] = Parts.front().rsplit('.');
      if (Top.empty())
        std::swap(Ns, Top);
      uint32_t Type = M->findTypeDef(Ns, Top);
      for (size_t I = 1; Type && I < Parts.size(); ++I) {
        uint32_t Found = 0;
        for (uint32_t N : M->nestedTypes(Type))
          if (M->getString(M->get(TableId::TypeDef, N, TypeDefCol::TypeName)) == Parts[I])
            Found = N;
        Type = Found;
      }
      if (!Type)
        continue;
      for (uint32_t Me : M->typeMethods(Type)) {
        uint32_t R = M->method(Me);
        if (R < MethodExcluded.size() && !MethodExcluded[R]) {
          MethodExcluded[R] = true;
          StringRef N = M->getString(M->get(TableId::MethodDef, R, MethodDefCol::Name));
          if (N.contains("MoveNext"))
            addSection(R, Order);
        }
      }
    }
  }
}

void CoverageFilter::prepare(const Module &Mod, StringRef Assembly, const Module *P) {
  M = &Mod;
  Pdb = P;
  uint32_t Methods = M->rowCount(TableId::MethodDef);
  MethodExcluded.assign(Methods + 1, false);
  PartlyInSections.assign(Methods + 1, false);
  // A slot per method only when noteBody fills them (24 bytes each: 1 MiB for CoreLib).
  SkippedOffsets.assign(SkipAutoProps ? Methods + 1 : 0, {});
  Sections.clear();

  // The whole module: an attribute on the assembly, or the filters that choose modules.
  if (M->rowCount(TableId::Assembly) && carriesExcludeAttribute(makeToken(TableId::Assembly, 1)))
    ModuleExcluded = true;
  std::vector<const TypeFilter *> ModuleIncludes;
  for (const TypeFilter &F : Include)
    if (F.endsWithStar())
      ModuleIncludes.push_back(&F);
  if (!ModuleIncludes.empty() && llvm::none_of(ModuleIncludes, [&](const TypeFilter *F) {
        return F->matchesModule(Assembly);
      }))
    ModuleExcluded = true;
  if (llvm::any_of(Exclude, [&](const TypeFilter &F) {
        return F.wholeAssembly() && F.matchesModule(Assembly);
      }))
    ModuleExcluded = true;
  if (ModuleExcluded)
    return;

  // The backing fields of auto-implemented properties (skip-auto-props).
  BackingField.assign(M->rowCount(TableId::Field) + 1, false);
  if (SkipAutoProps)
    for (uint32_t F = 1; F < BackingField.size(); ++F)
      BackingField[F] =
          M->getString(M->get(TableId::Field, F, FieldCol::Name)).endswith("k__BackingField") &&
          carriesAttribute(makeToken(TableId::Field, F), CompilerGenerated);

  // Types, then their methods; a property's attributes are its accessors'.
  for (uint32_t T = 1; T <= M->rowCount(TableId::TypeDef); ++T) {
    bool TypeOut = typeExcluded(T, Assembly);
    DenseMap<uint32_t, Token> PropertyOf; // accessor -> property
    if (!TypeOut)
      if (uint32_t Map = M->propertyMap(T))
        for (uint32_t PI : M->mapProperties(Map)) {
          Token Prop = makeToken(TableId::Property, M->property(PI));
          for (uint32_t S : M->semantics(Prop))
            PropertyOf[M->get(TableId::MethodSemantics, S, MethodSemanticsCol::Method)] = Prop;
        }
    for (uint32_t Me : M->typeMethods(T)) {
      uint32_t Row = M->method(Me);
      if (Row >= MethodExcluded.size() || MethodExcluded[Row])
        continue;
      if (TypeOut) {
        MethodExcluded[Row] = true;
        continue;
      }
      Token Method = makeToken(TableId::MethodDef, Row);
      StringRef Name = M->getString(M->get(TableId::MethodDef, Row, MethodDefCol::Name));
      bool AutoProp = SkipAutoProps && (M->methodSemanticsOf(Row) & 0x3); // setter, getter
      bool Ctor = Name == ".ctor" || Name == ".cctor";
      // No code of the user's (as coverlet): an auto-property's accessor, a constructor the
      // compiler made with lines.
      if ((AutoProp || Ctor) && carriesAttribute(Method, CompilerGenerated) &&
          (AutoProp || hasLines(Row))) {
        MethodExcluded[Row] = true;
        continue;
      }
      auto Prop = PropertyOf.find(Row);
      if (carriesExcludeAttribute(Method) ||
          (Prop != PropertyOf.end() && carriesExcludeAttribute(Prop->second)))
        excludeMethodWithItsCode(Row);
    }
  }
  readLinesOfTheRest();
}

/// The methods not left out yet, by their lines: those in an excluded file, and those whose
/// statements all lie within the lines of a method left out before them (its lambdas, local
/// functions), as coverlet instruments them in order.
void CoverageFilter::readLinesOfTheRest() {
  if (!Pdb || (Sections.empty() && Files.empty()))
    return;
  DenseMap<uint32_t, bool> DocumentExcluded;
  for (uint32_t Row = 1; Row < MethodExcluded.size(); ++Row) {
    if (MethodExcluded[Row])
      continue;
    Expected<std::vector<pdb::SequencePoint>> Points = pdb::methodSequencePoints(*Pdb, Row);
    if (!Points) {
      consumeError(Points.takeError());
      continue;
    }
    if (Points->empty())
      continue;
    if (!Files.empty()) {
      uint32_t Doc = Points->front().Document;
      auto [It, New] = DocumentExcluded.try_emplace(Doc, false);
      if (New) {
        Expected<std::string> Name = pdb::documentName(*Pdb, Doc);
        if (Name)
          It->second =
              llvm::any_of(Files, [&](const std::string &G) { return matchesFileGlob(G, *Name); });
        else
          consumeError(Name.takeError());
      }
      if (It->second) {
        MethodExcluded[Row] = true;
        continue;
      }
    }
    unsigned Visible = 0, Inside = 0;
    for (const pdb::SequencePoint &P : *Points) {
      if (P.isHidden())
        continue;
      ++Visible;
      Inside += inEarlierSection(Row, P);
    }
    if (Visible && Inside == Visible)
      MethodExcluded[Row] = true;
    else if (Inside)
      PartlyInSections[Row] = true;
  }
}

void CoverageFilter::noteBody(uint32_t Row, bool IsConstructor, const il::MethodBody &B) {
  if (!SkipAutoProps || !IsConstructor || Row >= SkippedOffsets.size())
    return;
  const std::vector<il::Instr *> &Order = B.instructions();
  uint32_t Type = M->declaringTypeOfMethod(Row);
  // The statements that start `ldarg; VALUE; stfld <P>k__BackingField` (an auto-property's
  // initial value, one instruction) or `ldarg; call System.Object::...` (the base constructor).
  for (size_t I = 0; I + 1 < Order.size(); ++I) {
    const il::Instr *A = Order[I];
    if (!isLdarg(A->Op) || A->OriginalOffset == il::NoOffset)
      continue;
    const il::Instr *Next = Order[I + 1];
    bool Skip = false;
    if (Next->Op == il::Opcode::Call) {
      Token Callee = Next->Token;
      if (tokenTable(Callee) == TableId::MemberRef && M->isValidToken(Callee))
        Skip = fullTypeName(*M, M->getToken(TableId::MemberRef, tokenRow(Callee),
                                            MemberRefCol::Class)) == "System.Object";
    }
    if (!Skip && I + 2 < Order.size() && Order[I + 2]->Op == il::Opcode::Stfld) {
      Token F = Order[I + 2]->Token;
      if (tokenTable(F) == TableId::Field && tokenRow(F) < BackingField.size())
        Skip = BackingField[tokenRow(F)] && M->declaringTypeOfField(tokenRow(F)) == Type;
    }
    if (Skip)
      SkippedOffsets[Row].push_back(A->OriginalOffset);
  }
}

bool CoverageFilter::keepsPoint(uint32_t Row, const pdb::SequencePoint &P) const {
  if (Row < SkippedOffsets.size() && llvm::is_contained(SkippedOffsets[Row], P.ILOffset))
    return false;
  if (Row < PartlyInSections.size() && PartlyInSections[Row])
    return !inEarlierSection(Row, P);
  return true;
}

} // namespace weft::passes
