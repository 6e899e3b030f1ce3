//===- tests/support/PtrTablesImage.cpp - An assembly with *Ptr tables ----===//
#include "tests/support/PtrTablesImage.h"

#include "il/BodyReader.h"
#include "metadata/Module.h"
#include "metadata/Schema.h"
#include "pe/Image.h"
#include "support/Error.h"
#include "tests/support/PeFile.h"

#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <set>

using namespace llvm;

namespace weft::test {

namespace {

using namespace metadata;

constexpr uint32_t SectionReadOnlyData = 0x40000040; // initialised data, readable

void put(std::vector<uint8_t> &Out, uint64_t V, unsigned Bytes) {
  for (unsigned I = 0; I < Bytes; ++I)
    Out.push_back(uint8_t(V >> (8 * I)));
}
void pad4(std::vector<uint8_t> &Out) {
  while (Out.size() % 4)
    Out.push_back(0);
}

// Member lists hold positions in the *Ptr tables, not rows: they stay where they are when rows
// move.
bool isMemberList(TableId T, unsigned Col) {
  return (T == TableId::TypeDef &&
          (Col == TypeDefCol::FieldList || Col == TypeDefCol::MethodList)) ||
         (T == TableId::MethodDef && Col == MethodDefCol::ParamList) ||
         (T == TableId::EventMap && Col == EventMapCol::EventList) ||
         (T == TableId::PropertyMap && Col == PropertyMapCol::PropertyList);
}

// Every table of a module as cells that can be moved about: a row index as the row number, a
// coded index as the token it names, any other column as stored.
class TableSet {
public:
  explicit TableSet(const Module &M);

  uint32_t rows(TableId T) const {
    const Table &Tab = Tables[unsigned(T)];
    return Tab.Columns ? uint32_t(Tab.Cells.size() / Tab.Columns) : 0;
  }
  uint32_t &cell(TableId T, uint32_t Row, unsigned Col) {
    Table &Tab = Tables[unsigned(T)];
    return Tab.Cells[size_t(Row - 1) * Tab.Columns + Col];
  }
  uint32_t cell(TableId T, uint32_t Row, unsigned Col) const {
    const Table &Tab = Tables[unsigned(T)];
    return Tab.Cells[size_t(Row - 1) * Tab.Columns + Col];
  }

  /// Where each row of \p Member goes when the runs of rows that \p Owner's \p List column gives
  /// each owner are stored in reverse order, each run in its own order.
  std::vector<uint32_t> runsReversed(TableId Owner, unsigned List, TableId Member) const;
  /// Adds the *Ptr table of \p Member, listing its rows in their present order.
  void addPtrTable(TableId Ptr, TableId Member);
  /// Moves row R of \p T to row NewRow[R]; every reference to a row of \p T follows it.
  void renumber(TableId T, ArrayRef<uint32_t> NewRow);
  /// Sorts \p T by its key columns as stored (stably, so rows with equal keys keep their order).
  void sort(TableId T, unsigned Primary, int Secondary);
  /// The [begin, end) positions of each method's parameter list.
  std::vector<std::pair<uint32_t, uint32_t>> paramLists() const;
  /// Hands out ParamPtr positions again in the order the methods are stored (see the caller).
  void layOutParamLists(ArrayRef<std::pair<uint32_t, uint32_t>> OldLists,
                        ArrayRef<uint32_t> MethodRow);
  /// The "#-" stream holding the tables.
  std::vector<uint8_t> stream(uint64_t SortedMask) const;

private:
  unsigned width(TableId T, unsigned Col) const;
  uint32_t stored(TableId T, unsigned Col, uint32_t Value) const;

  struct Table {
    unsigned Columns = 0;
    std::vector<uint32_t> Cells;
  };
  std::array<Table, MaxTables> Tables;
  uint8_t HeapSizes;
};

TableSet::TableSet(const Module &M) : HeapSizes(M.heapSizes() & 0x7) {
  for (unsigned T = 0; T < MaxTables; ++T) {
    const TableSpec &Spec = tableSpec(T);
    if (!Spec.exists())
      continue;
    Table &Tab = Tables[T];
    Tab.Columns = Spec.NumColumns;
    for (uint32_t R = 1; R <= M.rowCount(TableId(T)); ++R)
      for (unsigned C = 0; C < Spec.NumColumns; ++C)
        Tab.Cells.push_back(Spec.Columns[C].Kind == ColumnKind::Coded ? M.getToken(TableId(T), R, C)
                                                                      : M.get(TableId(T), R, C));
  }
}

std::vector<uint32_t> TableSet::runsReversed(TableId Owner, unsigned List, TableId Member) const {
  uint32_t Rows = rows(Member);
  // The runs start at the owners' list starts (member lists never go back), and at row 1 for rows
  // before the first owner's.
  std::vector<uint32_t> Starts{1};
  for (uint32_t R = 1; R <= rows(Owner); ++R)
    Starts.push_back(std::clamp(cell(Owner, R, List), 1u, Rows + 1));
  Starts.push_back(Rows + 1);
  std::vector<uint32_t> NewRow(Rows + 1, 0);
  uint32_t Next = 1;
  for (size_t I = Starts.size() - 1; I-- > 0;)
    for (uint32_t R = Starts[I]; R < Starts[I + 1]; ++R)
      NewRow[R] = Next++;
  return NewRow;
}

void TableSet::addPtrTable(TableId Ptr, TableId Member) {
  Table &Tab = Tables[unsigned(Ptr)];
  Tab.Cells.resize(rows(Member));
  std::iota(Tab.Cells.begin(), Tab.Cells.end(), 1u);
}

void TableSet::renumber(TableId Target, ArrayRef<uint32_t> NewRow) {
  Table &Tab = Tables[unsigned(Target)];
  std::vector<uint32_t> Moved(Tab.Cells.size());
  for (uint32_t R = 1; R <= rows(Target); ++R)
    std::copy_n(Tab.Cells.begin() + size_t(R - 1) * Tab.Columns, Tab.Columns,
                Moved.begin() + size_t(NewRow[R] - 1) * Tab.Columns);
  Tab.Cells = std::move(Moved);
  for (unsigned T = 0; T < MaxTables; ++T) {
    const TableSpec &Spec = tableSpec(T);
    for (unsigned C = 0; Spec.exists() && C < Spec.NumColumns; ++C) {
      const ColumnSpec &Col = Spec.Columns[C];
      if (isMemberList(TableId(T), C) ||
          (Col.Kind != ColumnKind::Idx && Col.Kind != ColumnKind::Coded))
        continue;
      for (uint32_t R = 1; R <= rows(TableId(T)); ++R) {
        uint32_t &V = cell(TableId(T), R, C);
        if (Col.Kind == ColumnKind::Idx && TableId(Col.Arg) == Target && V)
          V = NewRow[V];
        else if (Col.Kind == ColumnKind::Coded && tokenTable(V) == Target && tokenRow(V))
          V = makeToken(Target, NewRow[tokenRow(V)]);
      }
    }
  }
}

void TableSet::sort(TableId T, unsigned Primary, int Secondary) {
  if (!rows(T))
    return;
  std::vector<uint32_t> Order(rows(T));
  std::iota(Order.begin(), Order.end(), 1u);
  auto Key = [&](uint32_t Row) {
    uint32_t Second = Secondary < 0 ? 0 : stored(T, unsigned(Secondary), cell(T, Row, Secondary));
    return std::make_pair(stored(T, Primary, cell(T, Row, Primary)), Second);
  };
  std::stable_sort(Order.begin(), Order.end(),
                   [&](uint32_t A, uint32_t B) { return Key(A) < Key(B); });
  std::vector<uint32_t> NewRow(Order.size() + 1, 0);
  for (uint32_t I = 0; I < Order.size(); ++I)
    NewRow[Order[I]] = I + 1;
  renumber(T, NewRow);
}

std::vector<std::pair<uint32_t, uint32_t>> TableSet::paramLists() const {
  uint32_t Methods = rows(TableId::MethodDef);
  uint32_t Limit = std::max(rows(TableId::ParamPtr), rows(TableId::Param)) + 1;
  std::vector<std::pair<uint32_t, uint32_t>> Lists(Methods + 1);
  for (uint32_t R = 1; R <= Methods; ++R) {
    uint32_t Begin = cell(TableId::MethodDef, R, MethodDefCol::ParamList);
    uint32_t End = R < Methods ? cell(TableId::MethodDef, R + 1, MethodDefCol::ParamList) : Limit;
    Lists[R] = {Begin, std::max(Begin, End)};
  }
  return Lists;
}

// A method's parameter list ends where the next stored method's begins, so with the methods
// stored in another order the lists must be laid out again in that order.
void TableSet::layOutParamLists(ArrayRef<std::pair<uint32_t, uint32_t>> OldLists,
                                ArrayRef<uint32_t> MethodRow) {
  uint32_t Methods = rows(TableId::MethodDef);
  std::vector<uint32_t> OldMethod(Methods + 1, 0);
  for (uint32_t Old = 1; Old <= Methods; ++Old)
    OldMethod[MethodRow[Old]] = Old;
  std::vector<uint32_t> OldPtr = std::move(Tables[unsigned(TableId::ParamPtr)].Cells);
  std::vector<uint32_t> NewPtr;
  for (uint32_t R = 1; R <= Methods; ++R) {
    cell(TableId::MethodDef, R, MethodDefCol::ParamList) = uint32_t(NewPtr.size()) + 1;
    auto [Begin, End] = OldLists[OldMethod[R]];
    for (uint32_t Position = Begin; Position < End; ++Position)
      NewPtr.push_back(OldPtr[Position - 1]);
  }
  Tables[unsigned(TableId::ParamPtr)].Cells = std::move(NewPtr);
}

// ECMA-335 II.24.2.6: a heap index is 4 bytes when its HeapSizes bit is set; a row index is 4
// bytes when its table has 2^16 rows or more; a coded index when one of its tables has 2^(16 - tag
// bits) rows or more.
unsigned TableSet::width(TableId T, unsigned Col) const {
  const ColumnSpec &C = tableSpec(T).Columns[Col];
  switch (C.Kind) {
  case ColumnKind::U8: return 1;
  case ColumnKind::U16: return 2;
  case ColumnKind::U32: return 4;
  case ColumnKind::Str: return HeapSizes & 0x1 ? 4 : 2;
  case ColumnKind::Guid: return HeapSizes & 0x2 ? 4 : 2;
  case ColumnKind::Blob: return HeapSizes & 0x4 ? 4 : 2;
  case ColumnKind::Idx: return rows(TableId(C.Arg)) > 0xFFFF ? 4 : 2;
  case ColumnKind::Coded: {
    const CodedIndexSpec &K = codedIndexSpec(CodedIndex(C.Arg));
    uint32_t Most = 0;
    for (unsigned Tag = 0; Tag < K.NumTags; ++Tag)
      if (K.Tables[Tag] != TableId::Unused)
        Most = std::max(Most, rows(K.Tables[Tag]));
    return Most < (1u << (16 - K.TagBits)) ? 2 : 4;
  }
  }
  return 4;
}

// A cell as the file stores it: a coded index as (row << tag bits) | tag.
uint32_t TableSet::stored(TableId T, unsigned Col, uint32_t Value) const {
  const ColumnSpec &C = tableSpec(T).Columns[Col];
  if (C.Kind != ColumnKind::Coded)
    return Value;
  const CodedIndexSpec &K = codedIndexSpec(CodedIndex(C.Arg));
  for (unsigned Tag = 0; Tag < K.NumTags; ++Tag)
    if (K.Tables[Tag] == tokenTable(Value))
      return tokenRow(Value) << K.TagBits | Tag;
  return 0; // not reached: the token was decoded from this coded index
}

std::vector<uint8_t> TableSet::stream(uint64_t SortedMask) const {
  uint64_t Valid = 0;
  for (unsigned T = 0; T < MaxTables; ++T)
    if (rows(TableId(T)))
      Valid |= uint64_t(1) << T;
  std::vector<uint8_t> Out;
  put(Out, 0, 4); // reserved
  put(Out, 2, 1); // major version
  put(Out, 0, 1); // minor version
  put(Out, HeapSizes, 1);
  put(Out, 1, 1); // reserved
  put(Out, Valid, 8);
  put(Out, SortedMask, 8);
  for (unsigned T = 0; T < MaxTables; ++T)
    if ((Valid >> T) & 1)
      put(Out, rows(TableId(T)), 4);
  for (unsigned T = 0; T < MaxTables; ++T) {
    if (!((Valid >> T) & 1))
      continue;
    for (uint32_t R = 1; R <= rows(TableId(T)); ++R)
      for (unsigned C = 0; C < Tables[T].Columns; ++C)
        put(Out, stored(TableId(T), C, cell(TableId(T), R, C)), width(TableId(T), C));
  }
  pad4(Out);
  return Out;
}

// The stored rows of members move; the *Ptr tables keep the order in which their owners list
// them. A type's fields, a method's parameters and so on stay in increasing order among
// themselves: CoreCLR matches a type's fields with their layout rows assuming that the type lists
// them in increasing token order (EEClassLayoutInfo), and a file it cannot load proves nothing.
void moveMembers(TableSet &Tables, PtrTablesImage &Out) {
  struct Member {
    TableId Ptr, Table, Owner;
    unsigned List;
  };
  static const Member Members[] = {
      {TableId::FieldPtr, TableId::Field, TableId::TypeDef, TypeDefCol::FieldList},
      {TableId::MethodPtr, TableId::MethodDef, TableId::TypeDef, TypeDefCol::MethodList},
      {TableId::ParamPtr, TableId::Param, TableId::MethodDef, MethodDefCol::ParamList},
      {TableId::EventPtr, TableId::Event, TableId::EventMap, EventMapCol::EventList},
      {TableId::PropertyPtr, TableId::Property, TableId::PropertyMap,
       PropertyMapCol::PropertyList}};
  // Every run is found before any row moves: moving methods reorders the parameter lists.
  std::vector<std::vector<uint32_t>> NewRows;
  for (const Member &M : Members)
    NewRows.push_back(Tables.runsReversed(M.Owner, M.List, M.Table));
  std::vector<std::pair<uint32_t, uint32_t>> ParamLists = Tables.paramLists();
  for (size_t I = 0; I < std::size(Members); ++I) {
    if (!Tables.rows(Members[I].Table))
      continue;
    Tables.addPtrTable(Members[I].Ptr, Members[I].Table);
    Tables.renumber(Members[I].Table, NewRows[I]);
  }
  Out.FieldRow = std::move(NewRows[0]);
  Out.MethodRow = std::move(NewRows[1]);
  if (Tables.rows(TableId::Param))
    Tables.layOutParamLists(ParamLists, Out.MethodRow);
}

// The sorted tables whose keys can name a moved row (ECMA-335 II.22): generic parameters before
// their constraints, and custom attributes last, since they may belong to rows of any of these.
void sortAgain(TableSet &Tables) {
  struct Key {
    TableId Table;
    unsigned Primary;
    int Secondary;
  };
  static const Key Keys[] = {
      {TableId::GenericParam, GenericParamCol::Owner, GenericParamCol::Number},
      {TableId::GenericParamConstraint, GenericParamConstraintCol::Owner, -1},
      {TableId::Constant, ConstantCol::Parent, -1},
      {TableId::FieldMarshal, FieldMarshalCol::Parent, -1},
      {TableId::DeclSecurity, DeclSecurityCol::Parent, -1},
      {TableId::FieldLayout, FieldLayoutCol::Field, -1},
      {TableId::FieldRVA, FieldRVACol::Field, -1},
      {TableId::MethodSemantics, MethodSemanticsCol::Association, -1},
      {TableId::ImplMap, ImplMapCol::MemberForwarded, -1},
      {TableId::CustomAttribute, CustomAttributeCol::Parent, -1}};
  for (const Key &K : Keys)
    Tables.sort(K.Table, K.Primary, K.Secondary);
}

std::vector<uint8_t> metadataRoot(const Module &M, ArrayRef<uint8_t> TableStream) {
  struct Stream {
    StringRef Name;
    ArrayRef<uint8_t> Data;
  };
  std::vector<Stream> Streams{{"#-", TableStream}};
  for (StringRef Heap : {"#Strings", "#US", "#GUID", "#Blob"})
    if (!M.streamBytes(Heap).empty())
      Streams.push_back({Heap, M.streamBytes(Heap)});
  auto Padded = [](size_t N) { return (N + 3) & ~size_t(3); };
  ArrayRef<uint8_t> Version = M.versionField();
  size_t Offset = 16 + Padded(Version.size()) + 4;
  for (const Stream &S : Streams)
    Offset += 8 + Padded(S.Name.size() + 1);

  std::vector<uint8_t> Out;
  put(Out, 0x424A5342, 4); // "BSJB"
  put(Out, 1, 2);
  put(Out, 1, 2);
  put(Out, 0, 4);
  put(Out, Padded(Version.size()), 4);
  Out.insert(Out.end(), Version.begin(), Version.end());
  pad4(Out);
  put(Out, 0, 2); // flags
  put(Out, Streams.size(), 2);
  for (const Stream &S : Streams) {
    put(Out, Offset, 4);
    put(Out, Padded(S.Data.size()), 4);
    Out.insert(Out.end(), S.Name.begin(), S.Name.end());
    Out.push_back(0);
    pad4(Out);
    Offset += Padded(S.Data.size());
  }
  for (const Stream &S : Streams) {
    Out.insert(Out.end(), S.Data.begin(), S.Data.end());
    pad4(Out);
  }
  return Out;
}

Token movedToken(Token T, const PtrTablesImage &Made) {
  if (tokenTable(T) == TableId::Field && tokenRow(T) < Made.FieldRow.size())
    return makeToken(TableId::Field, Made.FieldRow[tokenRow(T)]);
  if (tokenTable(T) == TableId::MethodDef && tokenRow(T) < Made.MethodRow.size())
    return makeToken(TableId::MethodDef, Made.MethodRow[tokenRow(T)]);
  return T;
}

// Field and method tokens in the bodies follow their rows. A body that several methods share is
// changed once.
Error moveBodyTokens(const pe::Image &Img, const Module &M, const PtrTablesImage &Made,
                     PeFile &File) {
  std::set<uint64_t> Done;
  for (uint32_t R = 1; R <= M.rowCount(TableId::MethodDef); ++R) {
    Expected<std::optional<il::RawMethodBody>> Body = il::readMethodDefBody(Img, M, R);
    if (!Body)
      return Body.takeError();
    if (!*Body || !Done.insert((*Body)->FileOffset).second)
      continue;
    std::vector<il::Instruction> Code;
    if (Error E = il::decodeInstructions((*Body)->Code, (*Body)->codeFileOffset(), Code))
      return E;
    for (const il::Instruction &I : Code) {
      il::OperandKind K = I.info().Operand;
      if (K == il::OperandKind::Method || K == il::OperandKind::Field || K == il::OperandKind::Tok)
        File.write32((*Body)->codeFileOffset() + I.next() - 4, movedToken(I.Token, Made));
    }
  }
  return Error::success();
}

} // namespace

Expected<PtrTablesImage> makePtrTablesImage(StringRef Path) {
  Expected<SourceAssembly> Source = readSourceAssembly(Path);
  if (!Source)
    return Source.takeError();
  const pe::Image &Img = *Source->Image;
  const Module &M = *Source->Module;
  ArrayRef<uint8_t> Input = Source->bytes();
  if (M.isUncompressed())
    return createFileError(Path, plainError("the metadata has a '#-' stream already"));

  PtrTablesImage Made;
  TableSet Tables(M);
  moveMembers(Tables, Made);
  sortAgain(Tables);
  std::vector<uint8_t> Root = metadataRoot(M, Tables.stream(M.sortedMask()));

  Expected<PeFile> File = PeFile::parse(std::vector<uint8_t>(Input.begin(), Input.end()));
  if (!File)
    return createFileError(Path, File.takeError());
  if (Error E = moveBodyTokens(Img, M, Made, *File))
    return createFileError(Path, std::move(E));
  File->write32(Img.cli()->FileOffset + 20, movedToken(Img.cli()->EntryPoint, Made));
  // The PDB numbers methods by row, so it no longer describes this file.
  File->setDirectory(pe::DirDebug, 0, 0);
  Expected<uint32_t> RVA = File->addSection(".meta", Root, SectionReadOnlyData);
  if (!RVA)
    return createFileError(Path, RVA.takeError());
  Expected<uint64_t> Cli = File->cliHeaderOffset(); // the headers may have grown
  if (!Cli)
    return createFileError(Path, Cli.takeError());
  File->write32(*Cli + 8, *RVA);
  File->write32(*Cli + 12, uint32_t(Root.size()));
  Made.Bytes = File->bytes();
  return std::move(Made);
}

} // namespace weft::test
