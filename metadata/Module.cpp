//===- metadata/Module.cpp - Metadata root, streams, heaps and tables -----===//
#include "metadata/Module.h"

#include "support/ByteReader.h"
#include "support/Error.h"
#include "support/Format.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/bit.h"

#include <algorithm>
#include <cstring>
#include <numeric>

using namespace llvm;

namespace weft::metadata {

namespace {
constexpr uint32_t RootSignature = 0x424A5342; // "BSJB"
constexpr unsigned MaxStreams = 64;
constexpr unsigned MaxStreamName = 32;

bool isListColumn(TableId T, unsigned Col) {
  switch (T) {
  case TableId::TypeDef: return Col == TypeDefCol::FieldList || Col == TypeDefCol::MethodList;
  case TableId::MethodDef: return Col == MethodDefCol::ParamList;
  case TableId::EventMap: return Col == EventMapCol::EventList;
  case TableId::PropertyMap: return Col == PropertyMapCol::PropertyList;
  case TableId::LocalScope:
    return Col == LocalScopeCol::VariableList || Col == LocalScopeCol::ConstantList;
  default: return false;
  }
}

// Row-index columns that may be null (0); every other one must name a row.
bool isNullableIndex(TableId T, unsigned Col) {
  return (T == TableId::MethodDebugInformation && Col == MethodDebugInformationCol::Document) ||
         (T == TableId::ImportScope && Col == ImportScopeCol::Parent) ||
         (T == TableId::LocalScope && Col == LocalScopeCol::ImportScope) ||
         (T == TableId::ImplMap && Col == ImplMapCol::ImportScope);
}

// Coded-index columns that may be null; every other one must name a row.
bool isNullableCoded(TableId T, unsigned Col) {
  return (T == TableId::TypeDef && Col == TypeDefCol::Extends) ||
         (T == TableId::TypeRef && Col == TypeRefCol::ResolutionScope) ||
         (T == TableId::ManifestResource && Col == ManifestResourceCol::Implementation) ||
         (T == TableId::Event && Col == EventCol::EventType);
}

} // namespace

Module::~Module() = default;

Expected<std::unique_ptr<Module>> Module::create(ArrayRef<uint8_t> Bytes, uint64_t FileOffset) {
  std::unique_ptr<Module> M(new Module());
  M->Bytes = Bytes;
  M->FileOffset = FileOffset;
  M->Relations.reset(new Relation[RelCount]);
  M->OwnerData.reset(new Owners());
  M->Names.reset(new NameIndex());
  if (Error E = M->parseRoot())
    return std::move(E);
  if (Error E = M->validate())
    return std::move(E);
  return std::move(M);
}

Expected<std::unique_ptr<Module>> Module::createUnvalidated(ArrayRef<uint8_t> Bytes,
                                                            uint64_t FileOffset) {
  std::unique_ptr<Module> M(new Module());
  M->Bytes = Bytes;
  M->FileOffset = FileOffset;
  M->Relations.reset(new Relation[RelCount]);
  M->OwnerData.reset(new Owners());
  M->Names.reset(new NameIndex());
  if (Error E = M->parseRoot())
    return std::move(E);
  return std::move(M);
}

Error Module::parseRoot() {
  ByteReader R(Bytes, FileOffset);
  if (R.u32() != RootSignature)
    return formatError("metadata root", FileOffset, "missing 'BSJB' signature");
  Major = R.u16();
  Minor = R.u16();
  R.u32(); // reserved
  uint32_t Length = R.u32();
  if (R.ok() && Length > R.remaining())
    return formatError("metadata root", FileOffset + 12,
                       "version string length " + Twine(Length) + " exceeds the metadata size");
  StringRef V = R.chars(Length);
  VersionField = arrayRefFromStringRef(V);
  Version = V.take_until([](char C) { return C == 0; }).str();
  RootFlags = R.u16();
  uint16_t NumStreams = R.u16();
  if (Error E = R.takeError("metadata root"))
    return E;
  if (NumStreams > MaxStreams)
    return formatError("metadata root", R.fileOffset() - 2,
                       Twine(NumStreams) + " streams (at most " + Twine(MaxStreams) + ")");

  const StreamHeader *TableStream = nullptr;
  for (unsigned I = 0; I < NumStreams; ++I) {
    StreamHeader S;
    S.HeaderOffset = R.fileOffset();
    S.Offset = R.u32();
    S.Size = R.u32();
    size_t NameStart = R.pos();
    StringRef Name = R.cstring();
    if (!R.ok())
      return R.takeError("stream header " + Twine(I));
    if (Name.size() + 1 > MaxStreamName)
      return formatError("stream header " + Twine(I), FileOffset + NameStart,
                         "stream name is longer than " + Twine(MaxStreamName - 1) + " characters");
    R.align(4);
    S.Name = Name.str();
    if (S.Offset > Bytes.size() || S.Size > Bytes.size() - S.Offset)
      return formatError("stream header '" + S.Name + "'", S.HeaderOffset,
                         "stream [" + hex(S.Offset, 1) + ", +" + hex(S.Size, 1) +
                             ") extends beyond the metadata (size " + hex(Bytes.size(), 1) + ")");
    Streams.push_back(std::move(S));
  }
  if (Error E = R.takeError("stream headers"))
    return E;

  // When a stream name repeats, the first one is used (as the runtime does).
  auto Seen = [&](ArrayRef<uint8_t> Heap) { return Heap.data() != nullptr; };
  for (const StreamHeader &S : Streams) {
    ArrayRef<uint8_t> Data = Bytes.slice(S.Offset, S.Size);
    uint64_t Off = FileOffset + S.Offset;
    if (Data.empty())
      Data = ArrayRef<uint8_t>(Bytes.data() + S.Offset, size_t(0));
    if (S.Name == "#~" || S.Name == "#-") {
      if (!TableStream) {
        TableStream = &S;
        Uncompressed = S.Name == "#-";
      }
    } else if (S.Name == "#Strings") {
      if (!Seen(StringHeap))
        StringHeap = Data, StringHeapOffset = Off;
    } else if (S.Name == "#Blob") {
      if (!Seen(BlobHeap))
        BlobHeap = Data, BlobHeapOffset = Off;
    } else if (S.Name == "#GUID") {
      if (!Seen(GuidHeap))
        GuidHeap = Data, GuidHeapOffset = Off;
    } else if (S.Name == "#US") {
      if (!Seen(USHeap))
        USHeap = Data, USHeapOffset = Off;
    } else if (S.Name == "#JTD") {
      MinimalDelta = true;
    } else if (S.Name == "#Pdb" && !Pdb) {
      ByteReader P(Data, Off);
      PdbStream PS;
      ArrayRef<uint8_t> Id = P.bytes(20);
      if (Id.size() == 20)
        std::copy(Id.begin(), Id.end(), PS.Id.begin());
      PS.EntryPoint = P.u32();
      PS.ReferencedTypeSystemTables = P.u64();
      for (unsigned T = 0; T < 64; ++T)
        if ((PS.ReferencedTypeSystemTables >> T) & 1) {
          if (T >= 0x30 || !tableSpec(T).exists())
            return formatError("#Pdb stream", Off + 24,
                               "referenced type-system table " + Twine(T) + " does not exist");
          PS.TypeSystemRows[T] = P.u32();
        }
      if (Error E = P.takeError("#Pdb stream"))
        return E;
      Pdb = PS;
    }
  }
  if (GuidHeap.size() % 16)
    return formatError("#GUID heap", GuidHeapOffset,
                       "size " + Twine(GuidHeap.size()) + " is not a multiple of 16");
  if (!TableStream)
    return formatError("metadata root", FileOffset, "no '#~' or '#-' table stream");
  return parseTables(*TableStream);
}

Error Module::parseTables(const StreamHeader &S) {
  uint64_t Base = FileOffset + S.Offset;
  ByteReader R(Bytes.slice(S.Offset, S.Size), Base);
  R.u32(); // reserved
  TablesMajor = R.u8();
  TablesMinor = R.u8();
  HeapSizes = R.u8();
  TablesReserved = R.u8();
  Valid = R.u64();
  Sorted = R.u64();
  if (Error E = R.takeError("table stream header"))
    return E;
  for (unsigned T = 0; T < MaxTables; ++T) {
    if (!((Valid >> T) & 1))
      continue;
    if (!tableSpec(T).exists())
      return formatError("table stream header", Base + 8,
                         "the Valid mask has bit " + Twine(T) + " set, but table 0x" + hex(T, 2) +
                             " does not exist");
    size_t At = R.pos();
    Tables[T].Rows = R.u32();
    if (R.ok() && Tables[T].Rows > 0xFFFFFF)
      return formatError("table stream header", Base + At,
                         "table " + tableName(T) + " has " + Twine(Tables[T].Rows) +
                             " rows (a token can address at most 0xFFFFFF)");
  }
  if (HeapSizes & 0x40)
    ExtraData = R.u32();
  if (Error E = R.takeError("table stream header (row counts)"))
    return E;

  // Rows used to size references: a standalone PDB takes those of the type-system tables it
  // refers to from its #Pdb stream.
  uint32_t RefRows[MaxTables];
  for (unsigned T = 0; T < MaxTables; ++T)
    RefRows[T] = (Tables[T].Rows || !Pdb) ? Tables[T].Rows : Pdb->TypeSystemRows[T];
  ColumnWidths Widths;
  computeColumnWidths(RefRows, HeapSizes, MinimalDelta, Widths);

  uint64_t Pos = R.pos();
  for (unsigned T = 0; T < MaxTables; ++T) {
    const TableSpec &Spec = tableSpec(T);
    if (!Spec.exists())
      continue;
    TableInfo &TI = Tables[T];
    TI.NumColumns = Spec.NumColumns;
    unsigned Off = 0;
    for (unsigned C = 0; C < Spec.NumColumns; ++C) {
      TI.ColOffset[C] = Off;
      TI.ColWidth[C] = Widths.Width[T][C];
      Off += Widths.Width[T][C];
    }
    TI.RowSize = Off;
    if (!TI.Rows)
      continue;
    uint64_t Need = uint64_t(TI.Rows) * TI.RowSize;
    if (Need > S.Size - Pos)
      return formatError("table " + tableName(T), Base + Pos,
                         Twine(TI.Rows) + " rows of " + Twine(TI.RowSize) +
                             " bytes extend beyond the table stream (" + Twine(S.Size - Pos) +
                             " bytes left)");
    TI.Data = Bytes.data() + S.Offset + Pos;
    TI.FileOffset = Base + Pos;
    Pos += Need;
  }
  return Error::success();
}

uint64_t Module::rowOffset(TableId T, uint32_t Row, unsigned Col) const {
  const TableInfo &TI = Tables[unsigned(T)];
  return TI.FileOffset + uint64_t(Row ? Row - 1 : 0) * TI.RowSize +
         (Col < TI.NumColumns ? TI.ColOffset[Col] : 0);
}

ArrayRef<uint8_t> Module::rowBytes(TableId T, uint32_t Row) const {
  const TableInfo &TI = Tables[unsigned(T)];
  assert(Row >= 1 && Row <= TI.Rows);
  return ArrayRef<uint8_t>(TI.Data + size_t(Row - 1) * TI.RowSize, TI.RowSize);
}

Token Module::getToken(TableId T, uint32_t Row, unsigned Col) const {
  const ColumnSpec &CS = tableSpec(T).Columns[Col];
  uint32_t V = get(T, Row, Col);
  if (CS.Kind == ColumnKind::Idx)
    return makeToken(TableId(CS.Arg), V);
  Token Out = 0;
  decodeCodedIndex(CodedIndex(CS.Arg), V, Out); // validated at load
  return Out;
}

uint32_t Module::listLimit(TableId Target) const {
  TableId Ptr = ptrTableFor(Target);
  if (Ptr != TableId::Unused && Tables[unsigned(Ptr)].Rows)
    return Tables[unsigned(Ptr)].Rows + 1;
  return Tables[unsigned(Target)].Rows + 1;
}

Error Module::validate() const {
  auto RefRows = [&](unsigned T) -> uint32_t {
    if (Tables[T].Rows || !Pdb)
      return Tables[T].Rows;
    return Pdb->TypeSystemRows[T];
  };
  for (unsigned T = 0; T < MaxTables; ++T) {
    const TableInfo &TI = Tables[T];
    if (!TI.Rows)
      continue;
    const TableSpec &Spec = tableSpec(T);
    for (unsigned C = 0; C < Spec.NumColumns; ++C) {
      const ColumnSpec &CS = Spec.Columns[C];
      if (CS.Kind == ColumnKind::U8 || CS.Kind == ColumnKind::U16 || CS.Kind == ColumnKind::U32)
        continue;
      bool List = isListColumn(TableId(T), C);
      uint32_t Limit = 0;
      if (CS.Kind == ColumnKind::Idx)
        Limit = List ? listLimit(TableId(CS.Arg)) : RefRows(CS.Arg);
      uint32_t Prev = 0;
      for (uint32_t Row = 1; Row <= TI.Rows; ++Row) {
        uint32_t V = get(TableId(T), Row, C);
        auto Bad = [&](const Twine &Why) {
          return formatError("table " + tableName(T) + ", row " + Twine(Row) + ", column " +
                                 CS.Name,
                             rowOffset(TableId(T), Row, C), Why);
        };
        switch (CS.Kind) {
        case ColumnKind::Str:
          if (V && V >= StringHeap.size())
            return Bad("#Strings offset " + hex(V, 1) + " is beyond the heap (size " +
                       hex(StringHeap.size(), 1) + ")");
          break;
        case ColumnKind::Guid:
          if (uint64_t(V) * 16 > GuidHeap.size())
            return Bad("#GUID index " + Twine(V) + " is beyond the heap (" +
                       Twine(GuidHeap.size() / 16) + " entries)");
          break;
        case ColumnKind::Blob: {
          if (V == 0 && BlobHeap.empty())
            break;
          if (V >= BlobHeap.size())
            return Bad("#Blob offset " + hex(V, 1) + " is beyond the heap (size " +
                       hex(BlobHeap.size(), 1) + ")");
          uint32_t Len = 0;
          unsigned N = decodeCompressed(BlobHeap.drop_front(V), Len);
          if (!N)
            return Bad("#Blob entry at " + hex(V, 1) + " has a malformed length");
          if (uint64_t(V) + N + Len > BlobHeap.size())
            return Bad("#Blob entry at " + hex(V, 1) + " of length " + Twine(Len) +
                       " runs past the end of the heap");
          break;
        }
        case ColumnKind::Idx:
          // A list into an empty table may say 0 (some PDB writers do) instead of 1.
          if (V > Limit || (List && V == 0 && Limit > 1) ||
              (!List && V == 0 && !isNullableIndex(TableId(T), C)))
            return Bad(V == 0 ? "null row index into " + tableName(CS.Arg)
                              : "row index " + Twine(V) + " into " + tableName(CS.Arg) +
                                    " is out of range (" + Twine(RefRows(CS.Arg)) + " rows)");
          if (List && V < Prev)
            return Bad("member list start " + Twine(V) + " is before the previous row's (" +
                       Twine(Prev) + ")");
          Prev = V;
          break;
        case ColumnKind::Coded: {
          Token Tok;
          if (!decodeCodedIndex(CodedIndex(CS.Arg), V, Tok))
            return Bad("coded index " + hex(V, 1) + " has a tag that " +
                       codedIndexSpec(CodedIndex(CS.Arg)).Name + " does not use");
          if (tokenRow(Tok) == 0 && !isNullableCoded(TableId(T), C))
            return Bad("null " + Twine(codedIndexSpec(CodedIndex(CS.Arg)).Name) +
                       " reference where one is required");
          if (tokenRow(Tok) > RefRows(unsigned(tokenTable(Tok))))
            return Bad("coded index refers to " + tableName(tokenTable(Tok)) + " row " +
                       Twine(tokenRow(Tok)) + ", but the table has " +
                       Twine(RefRows(unsigned(tokenTable(Tok)))) + " rows");
          break;
        }
        default: break;
        }
      }
    }
  }
  // The *Ptr tables must point at existing rows.
  for (TableId Ptr : {TableId::FieldPtr, TableId::MethodPtr, TableId::ParamPtr, TableId::EventPtr,
                      TableId::PropertyPtr})
    for (uint32_t Row = 1; Row <= rowCount(Ptr); ++Row)
      if (get(Ptr, Row, 0) == 0)
        return formatError("table " + tableName(Ptr) + ", row " + Twine(Row), rowOffset(Ptr, Row),
                           "null row index");
  // Nesting must not loop: every chain of enclosing types ends at a top-level type.
  uint32_t Types = rowCount(TableId::TypeDef);
  if (uint32_t Rows = rowCount(TableId::NestedClass)) {
    std::vector<uint32_t> Enclosing(Types + 1, 0), RowOf(Types + 1, 0);
    for (uint32_t R = 1; R <= Rows; ++R) {
      uint32_t Nested = get(TableId::NestedClass, R, NestedClassCol::NestedClass);
      Enclosing[Nested] = get(TableId::NestedClass, R, NestedClassCol::EnclosingClass);
      RowOf[Nested] = R;
    }
    std::vector<uint8_t> State(Types + 1, 0); // 0 unseen, 1 on the current chain, 2 known good
    for (uint32_t T = 1; T <= Types; ++T) {
      uint32_t Cur = T;
      while (Cur && State[Cur] == 0) {
        State[Cur] = 1;
        Cur = Enclosing[Cur];
      }
      if (Cur && State[Cur] == 1)
        return formatError("table NestedClass, row " + Twine(RowOf[Cur]),
                           rowOffset(TableId::NestedClass, RowOf[Cur]),
                           "TypeDef row " + Twine(Cur) + " is nested in itself (a nesting cycle)");
      for (Cur = T; Cur && State[Cur] == 1; Cur = Enclosing[Cur])
        State[Cur] = 2;
    }
  }
  return Error::success();
}

ArrayRef<uint8_t> Module::streamBytes(StringRef Name) const {
  for (const StreamHeader &S : Streams)
    if (S.Name == Name)
      return Bytes.slice(S.Offset, S.Size);
  return {};
}

// --- heaps ---

StringRef Module::getString(uint32_t Offset) const {
  if (Offset >= StringHeap.size())
    return {};
  const char *Start = reinterpret_cast<const char *>(StringHeap.data()) + Offset;
  size_t Max = StringHeap.size() - Offset;
  const void *Nul = std::memchr(Start, 0, Max);
  return StringRef(Start, Nul ? static_cast<const char *>(Nul) - Start : Max);
}

ArrayRef<uint8_t> Module::getBlob(uint32_t Offset) const {
  if (Offset >= BlobHeap.size())
    return {};
  uint32_t Len = 0;
  unsigned N = decodeCompressed(BlobHeap.drop_front(Offset), Len);
  if (!N || uint64_t(Offset) + N + Len > BlobHeap.size())
    return {};
  return BlobHeap.slice(Offset + N, Len);
}

uint64_t Module::blobFileOffset(uint32_t Offset) const {
  uint32_t Len = 0;
  unsigned N = Offset < BlobHeap.size() ? decodeCompressed(BlobHeap.drop_front(Offset), Len) : 0;
  return BlobHeapOffset + Offset + N;
}

const uint8_t *Module::getGuid(uint32_t Index) const {
  if (Index == 0 || uint64_t(Index) * 16 > GuidHeap.size())
    return nullptr;
  return GuidHeap.data() + (Index - 1) * 16;
}

Expected<UserString> Module::getUserString(uint32_t Offset) const {
  if (Offset >= USHeap.size())
    return formatError("#US heap", USHeapOffset,
                       "offset " + hex(Offset, 1) + " is beyond the heap (size " +
                           hex(USHeap.size(), 1) + ")");
  uint32_t Len = 0;
  unsigned N = decodeCompressed(USHeap.drop_front(Offset), Len);
  if (!N || uint64_t(Offset) + N + Len > USHeap.size())
    return formatError("#US heap", USHeapOffset + Offset,
                       "entry at " + hex(Offset, 1) + " has a bad length");
  UserString U;
  ArrayRef<uint8_t> Data = USHeap.slice(Offset + N, Len);
  if (Len % 2 == 1) {
    U.Terminal = Data.back();
    Data = Data.drop_back();
  }
  U.Utf16 = Data;
  return U;
}

// --- member lists ---

RowRange Module::listRange(TableId Owner, unsigned Col, uint32_t Row, TableId Target) const {
  uint32_t Limit = listLimit(Target);
  uint32_t Begin = std::clamp(get(Owner, Row, Col), 1u, Limit);
  uint32_t End = Row < rowCount(Owner) ? get(Owner, Row + 1, Col) : Limit;
  End = std::clamp(End, Begin, Limit);
  return {Begin, End};
}

RowRange Module::typeFields(uint32_t TypeRow) const {
  return listRange(TableId::TypeDef, TypeDefCol::FieldList, TypeRow, TableId::Field);
}
RowRange Module::typeMethods(uint32_t TypeRow) const {
  return listRange(TableId::TypeDef, TypeDefCol::MethodList, TypeRow, TableId::MethodDef);
}
RowRange Module::methodParams(uint32_t MethodRow) const {
  return listRange(TableId::MethodDef, MethodDefCol::ParamList, MethodRow, TableId::Param);
}
RowRange Module::mapEvents(uint32_t EventMapRow) const {
  return listRange(TableId::EventMap, EventMapCol::EventList, EventMapRow, TableId::Event);
}
RowRange Module::mapProperties(uint32_t PropertyMapRow) const {
  return listRange(TableId::PropertyMap, PropertyMapCol::PropertyList, PropertyMapRow,
                   TableId::Property);
}

// --- derived relations ---

ArrayRef<uint32_t> Module::Relation::find(Token K) const {
  auto [B, E] = std::equal_range(Keys.begin(), Keys.end(), K);
  return ArrayRef<uint32_t>(Rows.data() + (B - Keys.begin()), E - B);
}

const Module::Relation &Module::relation(RelationKind K) const {
  struct Def {
    TableId Table;
    unsigned KeyCol;
    int ValueCol; // -1: the row itself
  };
  static const Def Defs[RelCount] = {
      {TableId::CustomAttribute, CustomAttributeCol::Parent, -1},
      {TableId::GenericParam, GenericParamCol::Owner, -1},
      {TableId::GenericParamConstraint, GenericParamConstraintCol::Owner, -1},
      {TableId::Constant, ConstantCol::Parent, -1},
      {TableId::FieldMarshal, FieldMarshalCol::Parent, -1},
      {TableId::ImplMap, ImplMapCol::MemberForwarded, -1},
      {TableId::ClassLayout, ClassLayoutCol::Parent, -1},
      {TableId::FieldLayout, FieldLayoutCol::Field, -1},
      {TableId::FieldRVA, FieldRVACol::Field, -1},
      {TableId::DeclSecurity, DeclSecurityCol::Parent, -1},
      {TableId::MethodSemantics, MethodSemanticsCol::Association, -1},
      {TableId::MethodImpl, MethodImplCol::Class, -1},
      {TableId::InterfaceImpl, InterfaceImplCol::Class, -1},
      {TableId::PropertyMap, PropertyMapCol::Parent, -1},
      {TableId::EventMap, EventMapCol::Parent, -1},
      {TableId::NestedClass, NestedClassCol::EnclosingClass, NestedClassCol::NestedClass},
  };
  Relation &Rel = Relations[K];
  std::call_once(Rel.Once, [&] {
    const Def &D = Defs[K];
    uint32_t N = rowCount(D.Table);
    std::vector<std::pair<Token, uint32_t>> Pairs;
    Pairs.reserve(N);
    for (uint32_t Row = 1; Row <= N; ++Row)
      Pairs.emplace_back(getToken(D.Table, Row, D.KeyCol),
                         D.ValueCol < 0 ? Row : get(D.Table, Row, unsigned(D.ValueCol)));
    std::stable_sort(Pairs.begin(), Pairs.end(),
                     [](const auto &A, const auto &B) { return A.first < B.first; });
    Rel.Keys.reserve(N);
    Rel.Rows.reserve(N);
    for (auto &[K2, V] : Pairs) {
      Rel.Keys.push_back(K2);
      Rel.Rows.push_back(V);
    }
  });
  return Rel;
}

ArrayRef<uint32_t> Module::customAttributes(Token Parent) const {
  return relation(RelCustomAttribute).find(Parent);
}
ArrayRef<uint32_t> Module::genericParams(Token Owner) const {
  return relation(RelGenericParam).find(Owner);
}
ArrayRef<uint32_t> Module::genericParamConstraints(uint32_t GenericParamRow) const {
  return relation(RelGenericParamConstraint)
      .find(makeToken(TableId::GenericParam, GenericParamRow));
}
ArrayRef<uint32_t> Module::declSecurity(Token Parent) const {
  return relation(RelDeclSecurity).find(Parent);
}
ArrayRef<uint32_t> Module::semantics(Token EventOrProperty) const {
  return relation(RelSemantics).find(EventOrProperty);
}
ArrayRef<uint32_t> Module::methodImpls(uint32_t TypeRow) const {
  return relation(RelMethodImpl).find(makeToken(TableId::TypeDef, TypeRow));
}
ArrayRef<uint32_t> Module::interfaceImpls(uint32_t TypeRow) const {
  return relation(RelInterfaceImpl).find(makeToken(TableId::TypeDef, TypeRow));
}
ArrayRef<uint32_t> Module::nestedTypes(uint32_t TypeRow) const {
  return relation(RelNested).find(makeToken(TableId::TypeDef, TypeRow));
}
uint32_t Module::constant(Token Parent) const { return single(RelConstant, Parent); }
uint32_t Module::fieldMarshal(Token Parent) const { return single(RelFieldMarshal, Parent); }
uint32_t Module::implMap(Token Member) const { return single(RelImplMap, Member); }
uint32_t Module::classLayout(uint32_t TypeRow) const {
  return single(RelClassLayout, makeToken(TableId::TypeDef, TypeRow));
}
uint32_t Module::fieldLayout(uint32_t FieldRow) const {
  return single(RelFieldLayout, makeToken(TableId::Field, FieldRow));
}
uint32_t Module::fieldRVA(uint32_t FieldRow) const {
  return single(RelFieldRVA, makeToken(TableId::Field, FieldRow));
}
uint32_t Module::propertyMap(uint32_t TypeRow) const {
  return single(RelPropertyMap, makeToken(TableId::TypeDef, TypeRow));
}
uint32_t Module::eventMap(uint32_t TypeRow) const {
  return single(RelEventMap, makeToken(TableId::TypeDef, TypeRow));
}

const Module::Owners &Module::memberOwners() const {
  Owners &O = *OwnerData;
  std::call_once(O.MembersOnce, [&] {
    O.FieldOwner.assign(rowCount(TableId::Field) + 1, 0);
    O.MethodOwner.assign(rowCount(TableId::MethodDef) + 1, 0);
    for (uint32_t T = 1; T <= rowCount(TableId::TypeDef); ++T) {
      for (uint32_t I : typeFields(T))
        if (uint32_t F = field(I); F < O.FieldOwner.size())
          O.FieldOwner[F] = T;
      for (uint32_t I : typeMethods(T))
        if (uint32_t M = method(I); M < O.MethodOwner.size())
          O.MethodOwner[M] = T;
    }
  });
  return O;
}

const Module::Owners &Module::paramOwners() const {
  Owners &O = *OwnerData;
  std::call_once(O.ParamsOnce, [&] {
    O.ParamOwner.assign(rowCount(TableId::Param) + 1, 0);
    for (uint32_t M = 1; M <= rowCount(TableId::MethodDef); ++M)
      for (uint32_t I : methodParams(M))
        if (uint32_t P = param(I); P < O.ParamOwner.size())
          O.ParamOwner[P] = M;
  });
  return O;
}

const Module::Owners &Module::nesting() const {
  Owners &O = *OwnerData;
  std::call_once(O.NestingOnce, [&] {
    O.Enclosing.assign(rowCount(TableId::TypeDef) + 1, 0);
    for (uint32_t R = 1; R <= rowCount(TableId::NestedClass); ++R) {
      uint32_t Nested = get(TableId::NestedClass, R, NestedClassCol::NestedClass);
      if (Nested < O.Enclosing.size())
        O.Enclosing[Nested] = get(TableId::NestedClass, R, NestedClassCol::EnclosingClass);
    }
  });
  return O;
}

const Module::Owners &Module::semantics() const {
  Owners &O = *OwnerData;
  std::call_once(O.SemanticsOnce, [&] {
    O.Semantics.assign(rowCount(TableId::MethodDef) + 1, 0);
    for (uint32_t R = 1; R <= rowCount(TableId::MethodSemantics); ++R) {
      uint32_t M = get(TableId::MethodSemantics, R, MethodSemanticsCol::Method);
      if (M < O.Semantics.size())
        O.Semantics[M] |= get(TableId::MethodSemantics, R, MethodSemanticsCol::Semantics);
    }
  });
  return O;
}

uint32_t Module::declaringTypeOfField(uint32_t FieldRow) const {
  const auto &V = memberOwners().FieldOwner;
  return FieldRow < V.size() ? V[FieldRow] : 0;
}
uint32_t Module::declaringTypeOfMethod(uint32_t MethodRow) const {
  const auto &V = memberOwners().MethodOwner;
  return MethodRow < V.size() ? V[MethodRow] : 0;
}
uint32_t Module::methodOfParam(uint32_t ParamRow) const {
  const auto &V = paramOwners().ParamOwner;
  return ParamRow < V.size() ? V[ParamRow] : 0;
}
uint32_t Module::enclosingType(uint32_t TypeRow) const {
  const auto &V = nesting().Enclosing;
  return TypeRow < V.size() ? V[TypeRow] : 0;
}
uint16_t Module::methodSemanticsOf(uint32_t MethodRow) const {
  const auto &V = semantics().Semantics;
  return MethodRow < V.size() ? V[MethodRow] : 0;
}

static std::string nameKey(StringRef Namespace, StringRef Name) {
  std::string K = Namespace.str();
  K.push_back('\0');
  K += Name;
  return K;
}

const Module::NameIndex &Module::names() const {
  NameIndex &N = *Names;
  std::call_once(N.Once, [&] {
    for (uint32_t R = 1; R <= rowCount(TableId::TypeDef); ++R)
      if (!enclosingType(R))
        N.TypeDefs.try_emplace(
            nameKey(getString(get(TableId::TypeDef, R, TypeDefCol::TypeNamespace)),
                    getString(get(TableId::TypeDef, R, TypeDefCol::TypeName))),
            R);
    for (uint32_t R = 1; R <= rowCount(TableId::ExportedType); ++R) {
      Token Impl = getToken(TableId::ExportedType, R, ExportedTypeCol::Implementation);
      if (tokenTable(Impl) == TableId::ExportedType)
        continue; // nested
      N.ExportedTypes.try_emplace(
          nameKey(getString(get(TableId::ExportedType, R, ExportedTypeCol::TypeNamespace)),
                  getString(get(TableId::ExportedType, R, ExportedTypeCol::TypeName))),
          R);
    }
  });
  return N;
}

uint32_t Module::findTypeDef(StringRef Namespace, StringRef Name) const {
  auto It = names().TypeDefs.find(nameKey(Namespace, Name));
  return It == names().TypeDefs.end() ? 0 : It->second;
}

uint32_t Module::findExportedType(StringRef Namespace, StringRef Name) const {
  auto It = names().ExportedTypes.find(nameKey(Namespace, Name));
  return It == names().ExportedTypes.end() ? 0 : It->second;
}

bool looksLikePortablePdb(ArrayRef<uint8_t> Bytes) {
  return Bytes.size() >= 4 && support::endian::read32le(Bytes.data()) == RootSignature;
}

bool looksLikeWindowsPdb(ArrayRef<uint8_t> Bytes) {
  static const char Magic[] = "Microsoft C/C++ MSF 7.00\r\n\x1a"
                              "DS";
  return Bytes.size() >= sizeof(Magic) - 1 &&
         std::memcmp(Bytes.data(), Magic, sizeof(Magic) - 1) == 0;
}

} // namespace weft::metadata
