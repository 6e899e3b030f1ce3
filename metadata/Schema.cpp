//===- metadata/Schema.cpp ------------------------------------------------===//
#include "metadata/Schema.h"

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

} // namespace weft::metadata
