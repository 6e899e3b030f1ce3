//===- metadata/Schema.h - Tables, columns and coded indices ----*- C++ -*-===//
//
// Generated from Tables.def and CodedIndexes.def: the table ids, one column enum per table
// (TypeDefCol::Extends, ...), and the static description of every table and coded index that the
// reader uses to size rows and the validator uses to check them.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_METADATA_SCHEMA_H
#define WEFT_METADATA_SCHEMA_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace weft::metadata {

enum class TableId : uint8_t {
#define TABLE(Id, Name, Cols) Name = Id,
#define COL(N, K, A)
#include "metadata/Tables.def"
  Unused = 0xFF,
};
constexpr unsigned MaxTables = 64;

#define TABLE(Id, Name, Cols)                                                                      \
  namespace Name##Col {                                                                            \
    enum : unsigned { Cols ColumnCount };                                                          \
  }
#define COL(N, K, A) N,
#include "metadata/Tables.def"

enum class CodedIndex : uint8_t {
#define CODED_INDEX(Name, Bits, Tables) Name,
#define T(X)
#include "metadata/CodedIndexes.def"
  Count
};

enum class ColumnKind : uint8_t { U8, U16, U32, Str, Guid, Blob, Idx, Coded };

struct ColumnSpec {
  ColumnKind Kind;
  uint8_t Arg; // the table (Idx) or coded index kind (Coded)
  const char *Name;
};

struct TableSpec {
  const char *Name = nullptr; // null for ids no table has
  uint8_t NumColumns = 0;
  const ColumnSpec *Columns = nullptr;
  bool exists() const { return Name != nullptr; }
};

struct CodedIndexSpec {
  const char *Name;
  uint8_t TagBits;
  uint8_t NumTags;
  TableId Tables[32]; // TableId::Unused for tags no table uses
};

const TableSpec &tableSpec(unsigned Id);
inline const TableSpec &tableSpec(TableId Id) { return tableSpec(unsigned(Id)); }
const CodedIndexSpec &codedIndexSpec(CodedIndex Kind);

/// The ECMA-335 (or portable PDB) name of a table: "TypeDef", "MemberRef", ...
llvm::StringRef tableName(unsigned Id);
inline llvm::StringRef tableName(TableId Id) { return tableName(unsigned(Id)); }
/// The indirection table (FieldPtr, MethodPtr, ...) of a member table, or Unused for other tables.
inline TableId ptrTableFor(TableId Target) {
  switch (Target) {
  case TableId::Field: return TableId::FieldPtr;
  case TableId::MethodDef: return TableId::MethodPtr;
  case TableId::Param: return TableId::ParamPtr;
  case TableId::Event: return TableId::EventPtr;
  case TableId::Property: return TableId::PropertyPtr;
  default: return TableId::Unused;
  }
}

/// True for the tables of a portable PDB (0x30-0x37).
inline bool isPdbTable(unsigned Id) { return Id >= 0x30 && Id <= 0x37; }

/// Tokens: the table in the top byte, the 1-based row below.
using Token = uint32_t;
inline Token makeToken(TableId T, uint32_t Row) { return (uint32_t(T) << 24) | Row; }
inline TableId tokenTable(Token T) { return TableId(T >> 24); }
inline uint32_t tokenRow(Token T) { return T & 0xFFFFFF; }
/// Token type of #US heap offsets in ldstr.
constexpr uint8_t UserStringTokenType = 0x70;

/// The width in bytes of every column of every table (and so each row's size), which depends on
/// the heap-size flags and on the row counts of the tables columns refer to (ECMA-335 II.24.2.6).
/// \p AllLarge makes every index 4 bytes (the "#JTD" marker of uncompressed metadata).
struct ColumnWidths {
  uint8_t Width[MaxTables][10] = {};
  uint32_t RowSize[MaxTables] = {};
};
void computeColumnWidths(const uint32_t (&RefRows)[MaxTables], uint8_t HeapSizes, bool AllLarge,
                         ColumnWidths &Out);

/// The tables that must be sorted (ECMA-335 II.22, portable PDB), with their key columns: rows
/// are ordered by the primary column's stored value, then by the secondary one's (-1: none).
struct SortKey {
  TableId Table;
  unsigned Primary;
  int Secondary;
};
llvm::ArrayRef<SortKey> sortKeys();

/// Encodes a token as a coded index of \p Kind; false if its table is not one \p Kind can name.
bool encodeCodedIndex(CodedIndex Kind, Token T, uint32_t &Out);

/// Decodes a coded index value into a token. Returns false if the tag is not valid for \p Kind.
/// A row of 0 (a null reference) gives a token whose row is 0.
bool decodeCodedIndex(CodedIndex Kind, uint32_t Value, Token &Out);

} // namespace weft::metadata

#endif
