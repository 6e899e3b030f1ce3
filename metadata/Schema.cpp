//===- metadata/Schema.cpp ------------------------------------------------===//
#include "metadata/Schema.h"

#include <algorithm>
#include <array>
#include <initializer_list>

namespace weft::metadata {

namespace {

#define ARG_U8(A) 0
#define ARG_U16(A) 0
#define ARG_U32(A) 0
#define ARG_Str(A) 0
#define ARG_Guid(A) 0
#define ARG_Blob(A) 0
#define ARG_Idx(A) uint8_t(TableId::A)
#define ARG_Coded(A) uint8_t(CodedIndex::A)

#define TABLE(Id, Name, Cols) constexpr ColumnSpec Name##Columns[] = {Cols};
#define COL(N, K, A) {ColumnKind::K, ARG_##K(A), #N},
#include "metadata/Tables.def"

constexpr std::array<TableSpec, MaxTables> makeTables() {
  std::array<TableSpec, MaxTables> Specs{};
#define TABLE(Id, Name, Cols)                                                                      \
  Specs[Id] = TableSpec{#Name, uint8_t(std::size(Name##Columns)), Name##Columns};
#define COL(N, K, A)
#include "metadata/Tables.def"
  return Specs;
}
constexpr std::array<TableSpec, MaxTables> Tables = makeTables();

constexpr CodedIndexSpec CodedIndexes[] = {
#define CODED_INDEX(Name, Bits, Tbls)                                                              \
  {#Name, Bits, uint8_t(std::initializer_list<TableId>{Tbls}.size()), {Tbls}},
#define T(X) TableId::X,
#include "metadata/CodedIndexes.def"
};
static_assert(std::size(CodedIndexes) == size_t(CodedIndex::Count));

} // namespace

const TableSpec &tableSpec(unsigned Id) {
  static const TableSpec None{};
  return Id < MaxTables ? Tables[Id] : None;
}

const CodedIndexSpec &codedIndexSpec(CodedIndex Kind) { return CodedIndexes[unsigned(Kind)]; }

llvm::StringRef tableName(unsigned Id) {
  const TableSpec &S = tableSpec(Id);
  return S.exists() ? llvm::StringRef(S.Name) : llvm::StringRef("<unknown table>");
}

bool decodeCodedIndex(CodedIndex Kind, uint32_t Value, Token &Out) {
  const CodedIndexSpec &S = codedIndexSpec(Kind);
  uint32_t Tag = Value & ((1u << S.TagBits) - 1);
  if (Tag >= S.NumTags || S.Tables[Tag] == TableId::Unused)
    return false;
  uint32_t Row = Value >> S.TagBits;
  if (Row > 0xFFFFFF)
    return false;
  Out = makeToken(S.Tables[Tag], Row);
  return true;
}

void computeColumnWidths(const uint32_t (&RefRows)[MaxTables], uint8_t HeapSizes, bool AllLarge,
                         ColumnWidths &Out) {
  unsigned StrW = (AllLarge || (HeapSizes & 0x01)) ? 4 : 2;
  unsigned GuidW = (AllLarge || (HeapSizes & 0x02)) ? 4 : 2;
  unsigned BlobW = (AllLarge || (HeapSizes & 0x04)) ? 4 : 2;
  unsigned CodedW[unsigned(CodedIndex::Count)];
  for (unsigned K = 0; K < unsigned(CodedIndex::Count); ++K) {
    const CodedIndexSpec &CS = CodedIndexes[K];
    uint32_t Max = 0;
    for (unsigned I = 0; I < CS.NumTags; ++I)
      if (CS.Tables[I] != TableId::Unused)
        Max = std::max(Max, RefRows[unsigned(CS.Tables[I])]);
    CodedW[K] = (AllLarge || Max >= (1u << (16 - CS.TagBits))) ? 4 : 2;
  }
  for (unsigned T = 0; T < MaxTables; ++T) {
    const TableSpec &Spec = Tables[T];
    uint32_t Size = 0;
    for (unsigned C = 0; C < Spec.NumColumns; ++C) {
      const ColumnSpec &Col = Spec.Columns[C];
      unsigned W = 0;
      switch (Col.Kind) {
      case ColumnKind::U8: W = 1; break;
      case ColumnKind::U16: W = 2; break;
      case ColumnKind::U32: W = 4; break;
      case ColumnKind::Str: W = StrW; break;
      case ColumnKind::Guid: W = GuidW; break;
      case ColumnKind::Blob: W = BlobW; break;
      case ColumnKind::Idx: W = (AllLarge || RefRows[Col.Arg] > 0xFFFF) ? 4 : 2; break;
      case ColumnKind::Coded: W = CodedW[Col.Arg]; break;
      }
      Out.Width[T][C] = uint8_t(W);
      Size += W;
    }
    Out.RowSize[T] = Size;
  }
}

bool encodeCodedIndex(CodedIndex Kind, Token T, uint32_t &Out) {
  const CodedIndexSpec &S = codedIndexSpec(Kind);
  for (unsigned Tag = 0; Tag < S.NumTags; ++Tag)
    if (S.Tables[Tag] == tokenTable(T)) {
      Out = (tokenRow(T) << S.TagBits) | Tag;
      return true;
    }
  // A null reference: row 0 of a table the index has no tag for (row 0 of one it has keeps its
  // tag, as C++/CLI's TypeRefs scoped to AssemblyRef 0 have it, so that they come out as read).
  Out = 0;
  return tokenRow(T) == 0;
}

llvm::ArrayRef<SortKey> sortKeys() {
  static const SortKey Keys[] = {
      {TableId::ClassLayout, ClassLayoutCol::Parent, -1},
      {TableId::Constant, ConstantCol::Parent, -1},
      {TableId::CustomAttribute, CustomAttributeCol::Parent, -1},
      {TableId::DeclSecurity, DeclSecurityCol::Parent, -1},
      {TableId::FieldLayout, FieldLayoutCol::Field, -1},
      {TableId::FieldMarshal, FieldMarshalCol::Parent, -1},
      {TableId::FieldRVA, FieldRVACol::Field, -1},
      {TableId::GenericParam, GenericParamCol::Owner, GenericParamCol::Number},
      {TableId::GenericParamConstraint, GenericParamConstraintCol::Owner, -1},
      {TableId::ImplMap, ImplMapCol::MemberForwarded, -1},
      {TableId::InterfaceImpl, InterfaceImplCol::Class, -1},
      {TableId::MethodImpl, MethodImplCol::Class, -1},
      {TableId::MethodSemantics, MethodSemanticsCol::Association, -1},
      {TableId::NestedClass, NestedClassCol::NestedClass, -1},
      {TableId::LocalScope, LocalScopeCol::Method, LocalScopeCol::StartOffset},
      {TableId::StateMachineMethod, StateMachineMethodCol::MoveNextMethod, -1},
      {TableId::CustomDebugInformation, CustomDebugInformationCol::Parent, -1},
  };
  return Keys;
}

} // namespace weft::metadata
