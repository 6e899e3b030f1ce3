//===- iltext/ModuleDiff.cpp - What tells two modules apart ---------------===//
#include "iltext/ModuleDiff.h"

#include "iltext/Disassembler.h"
#include "metadata/Blobs.h"
#include "metadata/CustomAttribute.h"
#include "metadata/Module.h"
#include "metadata/Names.h"
#include "metadata/Signature.h"
#include "metadata/TypeLayout.h"
#include "pe/Image.h"
#include "pe/Sha256.h"
#include "support/Format.h"
#include "support/LineDiff.h"
#include "support/WorkerTeam.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <iterator>
#include <map>
#include <optional>

using namespace llvm;
using namespace weft::metadata;

namespace weft::text {

StringRef changeKindName(ChangeKind K) {
  switch (K) {
  case ChangeKind::Added: return "added";
  case ChangeKind::Removed: return "removed";
  case ChangeKind::Changed: return "changed";
  }
  return "";
}

namespace {

struct KindNames {
  ItemKind Kind;
  const char *Id, *Text;
};
constexpr KindNames Kinds[] = {
    {ItemKind::Assembly, "assembly", "assembly"},
    {ItemKind::AssemblyRef, "assembly_ref", "assembly reference"},
    {ItemKind::ModuleRef, "module_ref", "module reference"},
    {ItemKind::TypeRef, "type_ref", "type reference"},
    {ItemKind::MemberRef, "member_ref", "member reference"},
    {ItemKind::Type, "type", "type"},
    {ItemKind::Field, "field", "field"},
    {ItemKind::Property, "property", "property"},
    {ItemKind::Event, "event", "event"},
    {ItemKind::CustomAttribute, "custom_attribute", "custom attribute"},
    {ItemKind::Resource, "resource", "resource"},
};
static_assert(std::size(Kinds) == size_t(ItemKind::Resource) + 1, "a name for every kind");

} // namespace

StringRef itemKindId(ItemKind K) { return Kinds[unsigned(K)].Id; }
StringRef itemKindText(ItemKind K) { return Kinds[unsigned(K)].Text; }

namespace {

//===----------------------------------------------------------------------===//
// Methods
//===----------------------------------------------------------------------===//

/// The methods' texts, with names made unique (` #2` after the second of a name).
Error methodTexts(DiffInput R, const DiffOptions &Options, std::vector<MethodText> &Out) {
  DisassemblerOptions DO;
  DO.Methods = Options.Methods;
  DO.StableLabels = true;
  if (Error E = disassembleMethods(R.Image, R.M, DO, Out))
    return E;
  StringMap<unsigned> Seen;
  for (MethodText &T : Out)
    if (unsigned N = ++Seen[T.Name]; N > 1)
      T.Name += " #" + std::to_string(N);
  return Error::success();
}

std::vector<TextHunk> textHunks(ArrayRef<StringRef> A, ArrayRef<StringRef> B,
                                ArrayRef<LineEdit> Script, unsigned Context) {
  std::vector<TextHunk> Out;
  for (const Hunk &H : makeHunks(Script, Context)) {
    TextHunk T;
    // Unified diffs count lines from 1, and name the line before for an empty side.
    T.AStart = H.ALines ? H.AStart + 1 : H.AStart;
    T.BStart = H.BLines ? H.BStart + 1 : H.BStart;
    T.ALines = H.ALines;
    T.BLines = H.BLines;
    for (const LineEdit &E : H.Lines) {
      if (E.Op == LineOp::Added)
        T.Lines.push_back(("+" + B[E.B]).str());
      else
        T.Lines.push_back(((E.Op == LineOp::Removed ? "-" : " ") + A[E.A]).str());
    }
    Out.push_back(std::move(T));
  }
  return Out;
}

/// Fills in the hunks and line counts of \p C from the two texts (either may be empty).
void compareTexts(StringRef A, StringRef B, const DiffOptions &Options, MethodChange &C) {
  std::vector<StringRef> LA = splitLines(A), LB = splitLines(B);
  std::vector<LineEdit> Script = diffLines(LA, LB);
  for (const LineEdit &E : Script) {
    C.LinesAdded += E.Op == LineOp::Added;
    C.LinesRemoved += E.Op == LineOp::Removed;
  }
  C.Hunks = textHunks(LA, LB, Script, Options.Context);
  if (Options.HashTexts && C.Kind != ChangeKind::Removed)
    C.TextSha256 = pe::sha256Hex(arrayRefFromStringRef(B));
}

MethodChange methodChange(const std::string &Name, ChangeKind K, uint32_t RowA, uint32_t RowB) {
  MethodChange C;
  C.Name = Name;
  C.Kind = K;
  C.RowA = RowA;
  C.RowB = RowB;
  return C;
}

/// The methods that differ: pairs by name, then those of one side only.
std::vector<MethodChange> compareMethods(ArrayRef<MethodText> A, ArrayRef<MethodText> B,
                                         const DiffOptions &Options, uint32_t &Compared) {
  StringMap<size_t> InB;
  for (size_t I = 0; I < B.size(); ++I)
    InB[B[I].Name] = I;
  std::vector<bool> Matched(B.size(), false);
  // The changes found, with the texts to compare (null for a side without the method).
  std::vector<MethodChange> Changes;
  std::vector<std::pair<const MethodText *, const MethodText *>> Texts;
  for (const MethodText &T : A) {
    auto It = InB.find(T.Name);
    if (It == InB.end()) {
      Changes.push_back(methodChange(T.Name, ChangeKind::Removed, T.Row, 0));
      Texts.push_back({&T, nullptr});
      continue;
    }
    Matched[It->second] = true;
    const MethodText &U = B[It->second];
    if (T.Text != U.Text) {
      Changes.push_back(methodChange(T.Name, ChangeKind::Changed, T.Row, U.Row));
      Texts.push_back({&T, &U});
    }
  }
  for (size_t I = 0; I < B.size(); ++I)
    if (!Matched[I]) {
      Changes.push_back(methodChange(B[I].Name, ChangeKind::Added, 0, B[I].Row));
      Texts.push_back({nullptr, &B[I]});
    }
  Compared = uint32_t(A.size() + B.size() - std::count(Matched.begin(), Matched.end(), true));
  auto Each = [&](size_t I) {
    compareTexts(Texts[I].first ? StringRef(Texts[I].first->Text) : StringRef(),
                 Texts[I].second ? StringRef(Texts[I].second->Text) : StringRef(), Options,
                 Changes[I]);
  };
  if (Options.Team)
    Options.Team->forEach(Changes.size(), Each);
  else
    for (size_t I = 0; I < Changes.size(); ++I)
      Each(I);
  return Changes;
}

//===----------------------------------------------------------------------===//
// Metadata
//===----------------------------------------------------------------------===//

struct Item {
  ItemKind Kind;
  std::string Name, Detail;
};

/// The metadata items of a module, named the same way whatever their rows.
class ItemLister {
public:
  ItemLister(DiffInput R, AssemblyResolver *Resolver)
      : Img(R.Image), M(R.M), Names(R.M), Resolver(Resolver) {}
  std::vector<Item> list();

private:
  template <typename F> std::string text(F Write) const {
    std::string S;
    raw_string_ostream OS(S);
    Write(OS);
    OS.flush();
    return S;
  }
  void add(ItemKind K, std::string Name, std::string Detail = {}) {
    Items.push_back({K, std::move(Name), std::move(Detail)});
  }
  std::string typeName(uint32_t Row) const {
    return text([&](raw_ostream &OS) { Names.typeDefName(OS, Row); });
  }
  std::string string(TableId T, uint32_t Row, unsigned Col) const {
    return M.getString(M.get(T, Row, Col)).str();
  }
  void assembly();
  void references();
  void types();
  void type(uint32_t Row);
  void fields(uint32_t Type, const std::string &TypeName);
  void fieldValue(raw_ostream &OS, uint32_t Row) const;
  void methods(uint32_t Type);
  void propertiesAndEvents(uint32_t Type, const std::string &TypeName);
  void attributes(Token Owner, StringRef OwnerText);
  std::string attributeText(uint32_t Row) const;
  void resources();
  std::string resourceDetail(uint32_t Row) const;

  const pe::Image &Img;
  const Module &M;
  NamePrinter Names;
  AssemblyResolver *Resolver;
  std::vector<Item> Items;
};

std::vector<Item> ItemLister::list() {
  assembly();
  references();
  types();
  resources();
  return std::move(Items);
}

std::string versionText(const Module &M, TableId T, uint32_t Row, unsigned FirstCol) {
  return "version " + std::to_string(M.get(T, Row, FirstCol)) + "." +
         std::to_string(M.get(T, Row, FirstCol + 1)) + "." +
         std::to_string(M.get(T, Row, FirstCol + 2)) + "." +
         std::to_string(M.get(T, Row, FirstCol + 3));
}

void ItemLister::assembly() {
  if (M.rowCount(TableId::Module))
    attributes(makeToken(TableId::Module, 1), "module");
  if (!M.rowCount(TableId::Assembly))
    return;
  std::string Detail = versionText(M, TableId::Assembly, 1, AssemblyCol::MajorVersion);
  if (StringRef C = M.getString(M.get(TableId::Assembly, 1, AssemblyCol::Culture)); !C.empty())
    Detail += ", culture " + C.str();
  ArrayRef<uint8_t> Key = M.getBlob(M.get(TableId::Assembly, 1, AssemblyCol::PublicKey));
  if (!Key.empty())
    Detail += ", public key " + toHex(Key, true);
  Detail += ", flags " + hex(M.get(TableId::Assembly, 1, AssemblyCol::Flags));
  add(ItemKind::Assembly, string(TableId::Assembly, 1, AssemblyCol::Name), Detail);
  attributes(makeToken(TableId::Assembly, 1), "assembly");
}

void ItemLister::references() {
  for (uint32_t Row = 1; Row <= M.rowCount(TableId::AssemblyRef); ++Row) {
    std::string Detail = versionText(M, TableId::AssemblyRef, Row, AssemblyRefCol::MajorVersion);
    if (StringRef C = M.getString(M.get(TableId::AssemblyRef, Row, AssemblyRefCol::Culture));
        !C.empty())
      Detail += ", culture " + C.str();
    ArrayRef<uint8_t> Key =
        M.getBlob(M.get(TableId::AssemblyRef, Row, AssemblyRefCol::PublicKeyOrToken));
    if (!Key.empty())
      Detail += ", key " + toHex(Key, true);
    add(ItemKind::AssemblyRef, string(TableId::AssemblyRef, Row, AssemblyRefCol::Name), Detail);
  }
  for (uint32_t Row = 1; Row <= M.rowCount(TableId::ModuleRef); ++Row)
    add(ItemKind::ModuleRef, string(TableId::ModuleRef, Row, ModuleRefCol::Name));
  for (uint32_t Row = 1; Row <= M.rowCount(TableId::TypeRef); ++Row)
    add(ItemKind::TypeRef, text([&](raw_ostream &OS) { Names.typeRefName(OS, Row); }));
  for (uint32_t Row = 1; Row <= M.rowCount(TableId::MemberRef); ++Row)
    add(ItemKind::MemberRef, text([&](raw_ostream &OS) {
          Names.methodToken(OS, makeToken(TableId::MemberRef, Row), GenericContext{});
        }));
}

void ItemLister::types() {
  for (uint32_t Row = 1; Row <= M.rowCount(TableId::TypeDef); ++Row)
    type(Row);
}

void ItemLister::type(uint32_t Row) {
  std::string Name = typeName(Row);
  std::string Detail = "flags " + hex(M.get(TableId::TypeDef, Row, TypeDefCol::Flags), 8);
  GenericContext Ctx{Row, 0};
  if (Token Extends = M.getToken(TableId::TypeDef, Row, TypeDefCol::Extends); tokenRow(Extends))
    Detail += text([&](raw_ostream &OS) {
      OS << " extends ";
      Names.typeToken(OS, Extends, Ctx);
    });
  ArrayRef<uint32_t> Impls = M.interfaceImpls(Row);
  for (size_t I = 0; I < Impls.size(); ++I)
    Detail += text([&](raw_ostream &OS) {
      OS << (I ? ", " : " implements ");
      Names.typeToken(OS, M.getToken(TableId::InterfaceImpl, Impls[I], InterfaceImplCol::Interface),
                      Ctx);
    });
  if (Row > 1) // <Module> is no type of the program's
    add(ItemKind::Type, Name, Detail);
  attributes(makeToken(TableId::TypeDef, Row), "type " + Name);
  fields(Row, Name);
  methods(Row);
  propertiesAndEvents(Row, Name);
}

void ItemLister::fields(uint32_t Type, const std::string &TypeName) {
  GenericContext Ctx{Type, 0};
  for (uint32_t I : M.typeFields(Type)) {
    uint32_t Row = M.field(I);
    std::string Name = TypeName + "::" + string(TableId::Field, Row, FieldCol::Name);
    std::string Detail = text([&](raw_ostream &OS) {
      if (Expected<TypeSig> Sig = fieldDefSig(M, Row))
        Names.type(OS, *Sig, Ctx);
      else
        writeBadSignature(OS, Sig.takeError());
      OS << ", flags " << hex(M.get(TableId::Field, Row, FieldCol::Flags), 4);
      fieldValue(OS, Row);
    });
    add(ItemKind::Field, Name, Detail);
    attributes(makeToken(TableId::Field, Row), "field " + Name);
  }
}

// A field's constant, or the data its RVA points at, so that a changed value is a change.
void ItemLister::fieldValue(raw_ostream &OS, uint32_t Row) const {
  if (uint32_t C = M.constant(makeToken(TableId::Field, Row))) {
    uint32_t Blob = M.get(TableId::Constant, C, ConstantCol::Value);
    OS << " = ";
    if (Error E = writeConstant(OS, M.get(TableId::Constant, C, ConstantCol::Type), M.getBlob(Blob),
                                M.blobFileOffset(Blob)))
      OS << "<bad constant: " << toString(std::move(E)) << '>';
  }
  if (!M.fieldRVA(Row))
    return;
  uint32_t RVA = M.get(TableId::FieldRVA, M.fieldRVA(Row), FieldRVACol::RVA);
  Expected<uint32_t> Size = fieldDataSize(M, Row);
  if (!Size) {
    OS << ", data of unknown size: " << toString(Size.takeError());
    return;
  }
  Expected<pe::Image::MappedRange> Bytes = Img.mappedRange(RVA, *Size, "field data");
  if (!Bytes) {
    OS << ", data unreadable: " << toString(Bytes.takeError());
    return;
  }
  OS << ", data " << *Size << " bytes, SHA-256 " << pe::sha256Hex(Bytes->Backed);
  if (Bytes->Zeros)
    OS << " and " << Bytes->Zeros << " zeros";
}

// Methods themselves are compared by their text; here only their attributes and their
// parameters' are listed, as the attributes of the other members are.
void ItemLister::methods(uint32_t Type) {
  for (uint32_t I : M.typeMethods(Type)) {
    uint32_t Row = M.method(I);
    Token Tok = makeToken(TableId::MethodDef, Row);
    std::string Name = text([&](raw_ostream &OS) { Names.methodToken(OS, Tok, GenericContext{}); });
    attributes(Tok, "method " + Name);
    for (uint32_t P : M.methodParams(Row)) {
      uint32_t Param = M.param(P);
      uint32_t Seq = M.get(TableId::Param, Param, ParamCol::Sequence);
      attributes(makeToken(TableId::Param, Param),
                 (Seq ? "parameter " + std::to_string(Seq) : std::string("return value")) +
                     " of method " + Name);
    }
  }
}

void ItemLister::propertiesAndEvents(uint32_t Type, const std::string &TypeName) {
  GenericContext Ctx{Type, 0};
  if (uint32_t Map = M.propertyMap(Type))
    for (uint32_t I : M.mapProperties(Map)) {
      uint32_t Row = M.property(I);
      std::string Name = TypeName + "::" + string(TableId::Property, Row, PropertyCol::Name);
      uint32_t Blob = M.get(TableId::Property, Row, PropertyCol::Type);
      std::string Detail = text([&](raw_ostream &OS) {
        Expected<MethodSig> Sig = decodePropertySig(M.getBlob(Blob), M.blobFileOffset(Blob), &M);
        if (!Sig)
          return writeBadSignature(OS, Sig.takeError());
        Names.type(OS, Sig->Return, Ctx);
        Names.paramTypes(OS, *Sig, Ctx);
      });
      add(ItemKind::Property, Name, Detail);
      attributes(makeToken(TableId::Property, Row), "property " + Name);
    }
  if (uint32_t Map = M.eventMap(Type))
    for (uint32_t I : M.mapEvents(Map)) {
      uint32_t Row = M.event(I);
      std::string Name = TypeName + "::" + string(TableId::Event, Row, EventCol::Name);
      Token T = M.getToken(TableId::Event, Row, EventCol::EventType);
      add(ItemKind::Event, Name, text([&](raw_ostream &OS) { Names.typeToken(OS, T, Ctx); }));
      attributes(makeToken(TableId::Event, Row), "event " + Name);
    }
}

void ItemLister::attributes(Token Owner, StringRef OwnerText) {
  for (uint32_t Row : M.customAttributes(Owner))
    add(ItemKind::CustomAttribute, OwnerText.str() + ": " + attributeText(Row));
}

std::string ItemLister::attributeText(uint32_t Row) const {
  return text([&](raw_ostream &OS) {
    Names.methodToken(OS, M.getToken(TableId::CustomAttribute, Row, CustomAttributeCol::Type),
                      GenericContext{});
    OS << " = ";
    Expected<CustomAttributeValue> V = decodeCustomAttribute(M, Row, Resolver);
    if (V && !customAttributeNotWritable(*V)) {
      writeCustomAttributeValue(OS, *V, Names);
      return;
    }
    if (!V)
      consumeError(V.takeError());
    writeByteList(OS, M.getBlob(M.get(TableId::CustomAttribute, Row, CustomAttributeCol::Value)));
  });
}

void ItemLister::resources() {
  for (uint32_t Row = 1; Row <= M.rowCount(TableId::ManifestResource); ++Row) {
    std::string Name = string(TableId::ManifestResource, Row, ManifestResourceCol::Name);
    add(ItemKind::Resource, Name, resourceDetail(Row));
    attributes(makeToken(TableId::ManifestResource, Row), "resource " + Name);
  }
}

// Where a resource is and, for an embedded one, what it holds.
std::string ItemLister::resourceDetail(uint32_t Row) const {
  uint32_t Flags = M.get(TableId::ManifestResource, Row, ManifestResourceCol::Flags);
  std::string S = (Flags & 7) == 2 ? "private" : "public";
  Token Impl = M.getToken(TableId::ManifestResource, Row, ManifestResourceCol::Implementation);
  if (tokenRow(Impl) && tokenTable(Impl) == TableId::File)
    return S + ", in the file " + string(TableId::File, tokenRow(Impl), FileCol::Name);
  if (tokenRow(Impl) && tokenTable(Impl) == TableId::AssemblyRef)
    return S + ", in the assembly " +
           string(TableId::AssemblyRef, tokenRow(Impl), AssemblyRefCol::Name);
  Expected<ArrayRef<uint8_t>> Bytes = embeddedResource(Img, M, Row);
  if (!Bytes)
    return S + ", embedded, unreadable: " + toString(Bytes.takeError());
  return S + ", " + std::to_string(Bytes->size()) + " bytes, SHA-256 " + pe::sha256Hex(*Bytes);
}

/// Items grouped by kind and name, with the details of each (several when the name repeats).
using ItemIndex = std::map<std::pair<ItemKind, std::string>, std::vector<std::string>>;

ItemIndex indexItems(std::vector<Item> Items) {
  ItemIndex Index;
  for (Item &I : Items)
    Index[{I.Kind, std::move(I.Name)}].push_back(std::move(I.Detail));
  for (auto &[Key, Details] : Index)
    llvm::sort(Details);
  return Index;
}

/// The changes of one name: details in one side only; one on each side is a change.
void compareDetails(ItemKind K, const std::string &Name, ArrayRef<std::string> A,
                    ArrayRef<std::string> B, std::vector<MetadataChange> &Out) {
  std::vector<std::string> OnlyA, OnlyB;
  std::set_difference(A.begin(), A.end(), B.begin(), B.end(), std::back_inserter(OnlyA));
  std::set_difference(B.begin(), B.end(), A.begin(), A.end(), std::back_inserter(OnlyB));
  if (OnlyA.size() == 1 && OnlyB.size() == 1 && !A.empty() && !B.empty()) {
    Out.push_back({K, ChangeKind::Changed, Name, OnlyA[0], OnlyB[0]});
    return;
  }
  for (const std::string &D : OnlyA)
    Out.push_back({K, ChangeKind::Removed, Name, D, {}});
  for (const std::string &D : OnlyB)
    Out.push_back({K, ChangeKind::Added, Name, {}, D});
}

std::vector<MetadataChange> compareItems(std::vector<Item> A, std::vector<Item> B) {
  ItemIndex IA = indexItems(std::move(A)), IB = indexItems(std::move(B));
  std::vector<MetadataChange> Out;
  static const std::vector<std::string> None;
  auto ItA = IA.begin(), ItB = IB.begin();
  while (ItA != IA.end() || ItB != IB.end()) {
    bool TakeA = ItB == IB.end() || (ItA != IA.end() && ItA->first <= ItB->first);
    bool TakeB = ItA == IA.end() || (ItB != IB.end() && ItB->first <= ItA->first);
    const auto &Key = TakeA ? ItA->first : ItB->first;
    compareDetails(Key.first, Key.second, TakeA ? ItA->second : None, TakeB ? ItB->second : None,
                   Out);
    if (TakeA)
      ++ItA;
    if (TakeB)
      ++ItB;
  }
  return Out;
}

} // namespace

Expected<ModuleDiff> diffModules(DiffInput A, DiffInput B, const DiffOptions &Options) {
  std::vector<MethodText> TextsA, TextsB;
  std::vector<Item> ItemsA, ItemsB;
  std::optional<Error> ErrA, ErrB;
  bool Metadata = Options.Methods.empty();
  // The four lists are independent: the team's threads take them in turn, the texts (the
  // larger) first.
  auto Make = [&](size_t I) {
    switch (I) {
    case 0: ErrA.emplace(methodTexts(A, Options, TextsA)); break;
    case 1: ErrB.emplace(methodTexts(B, Options, TextsB)); break;
    case 2:
      if (Metadata)
        ItemsA = ItemLister(A, Options.ResolverA).list();
      break;
    case 3:
      if (Metadata)
        ItemsB = ItemLister(B, Options.ResolverB).list();
      break;
    }
  };
  std::atomic<size_t> Next{0};
  auto Take = [&](unsigned) {
    for (size_t I; (I = Next.fetch_add(1)) < 4;)
      Make(I);
  };
  if (Options.Team)
    Options.Team->forEachMember(Take);
  else
    Take(0);
  auto Named = [](StringRef Path, Error E) -> Error {
    if (!E)
      return Error::success();
    return createFileError(Path, std::move(E));
  };
  if (Error E = joinErrors(Named(A.Path, std::move(*ErrA)), Named(B.Path, std::move(*ErrB))))
    return std::move(E);
  ModuleDiff D;
  D.Methods = compareMethods(TextsA, TextsB, Options, D.MethodsCompared);
  if (Metadata)
    D.Metadata = compareItems(std::move(ItemsA), std::move(ItemsB));
  return std::move(D);
}

} // namespace weft::text
