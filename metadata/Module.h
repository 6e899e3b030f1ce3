//===- metadata/Module.h - The metadata of one module -----------*- C++ -*-===//
//
// Reads ECMA-335 metadata (or a portable PDB, which has the same physical layout): the root, the
// stream headers, the heaps and the tables of the "#~" or uncompressed "#-" stream, including the
// *Ptr indirection tables and the portable PDB tables.
//
// Module::create validates every cell of every table once: heap offsets in range and blobs whole,
// row indices in range, coded-index tags valid, member lists non-decreasing. After that the
// accessors below cannot fail and do no checking of their own beyond assertions.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_METADATA_MODULE_H
#define WEFT_METADATA_MODULE_H

#include "metadata/Schema.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cassert>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace weft::metadata {

struct StreamHeader {
  std::string Name;
  uint32_t Offset = 0; // from the start of the metadata root
  uint32_t Size = 0;
  uint64_t HeaderOffset = 0; // file offset of this stream header
};

/// The "#Pdb" stream of a portable PDB.
struct PdbStream {
  std::array<uint8_t, 20> Id{};
  uint32_t EntryPoint = 0;
  uint64_t ReferencedTypeSystemTables = 0;
  std::array<uint32_t, MaxTables> TypeSystemRows{};
};

/// A half-open range [Begin, End) of 1-based rows.
struct RowRange {
  uint32_t Begin = 1, End = 1;
  uint32_t size() const { return End - Begin; }
  bool empty() const { return Begin == End; }
  struct iterator {
    uint32_t V;
    uint32_t operator*() const { return V; }
    iterator &operator++() { return ++V, *this; }
    bool operator!=(const iterator &O) const { return V != O.V; }
  };
  iterator begin() const { return {Begin}; }
  iterator end() const { return {End}; }
};

/// A user string from the #US heap, still UTF-16LE.
struct UserString {
  llvm::ArrayRef<uint8_t> Utf16; // an even number of bytes
  uint8_t Terminal = 0;          // the trailing byte: 1 if some char needs more than 8-bit handling
};

class Module {
public:
  /// Reads the metadata \p Bytes, which start at file offset \p FileOffset (for error messages).
  static llvm::Expected<std::unique_ptr<Module>> create(llvm::ArrayRef<uint8_t> Bytes,
                                                        uint64_t FileOffset = 0);
  /// Reads the layout (root, streams, table sizes) without validating the cells: for tools that
  /// show raw structures of files the full reader refuses. Accessors on such a module may return
  /// garbage (never read out of bounds) where the cells are bad.
  static llvm::Expected<std::unique_ptr<Module>> createUnvalidated(llvm::ArrayRef<uint8_t> Bytes,
                                                                   uint64_t FileOffset = 0);
  /// The validation create() does; returns the first bad cell.
  llvm::Error validate() const;
  ~Module();

  // --- root and streams ---
  llvm::ArrayRef<uint8_t> bytes() const { return Bytes; }
  uint64_t fileOffset() const { return FileOffset; }
  uint16_t majorVersion() const { return Major; }
  uint16_t minorVersion() const { return Minor; }
  llvm::StringRef versionString() const { return Version; }
  llvm::ArrayRef<StreamHeader> streams() const { return Streams; }
  /// True if the tables are in an uncompressed "#-" stream (which may use *Ptr tables).
  bool isUncompressed() const { return Uncompressed; }
  const std::optional<PdbStream> &pdb() const { return Pdb; }

  // --- table stream header ---
  uint16_t rootFlags() const { return RootFlags; }
  /// The version string field of the root as stored (padded to a multiple of 4).
  llvm::ArrayRef<uint8_t> versionField() const { return VersionField; }
  uint8_t tablesMajor() const { return TablesMajor; }
  uint8_t tablesReservedByte() const { return TablesReserved; }
  /// The extra data of the table stream header (present when heapSizes() has 0x40).
  uint32_t tablesExtraData() const { return ExtraData; }
  bool allIndicesLarge() const { return MinimalDelta; }
  /// The bytes of a stream (an empty range if there is no such stream).
  llvm::ArrayRef<uint8_t> streamBytes(llvm::StringRef Name) const;
  uint8_t tablesMinor() const { return TablesMinor; }
  uint8_t heapSizes() const { return HeapSizes; }
  uint64_t validMask() const { return Valid; }
  uint64_t sortedMask() const { return Sorted; }

  // --- tables ---
  bool hasTable(TableId T) const { return (Valid >> unsigned(T)) & 1; }
  uint32_t rowCount(TableId T) const { return Tables[unsigned(T)].Rows; }
  uint32_t rowSize(TableId T) const { return Tables[unsigned(T)].RowSize; }
  unsigned columnWidth(TableId T, unsigned Col) const { return Tables[unsigned(T)].ColWidth[Col]; }
  /// The value of column \p Col of row \p Row (1-based) of table \p T.
  uint32_t get(TableId T, uint32_t Row, unsigned Col) const {
    const TableInfo &TI = Tables[unsigned(T)];
    assert(Row >= 1 && Row <= TI.Rows && Col < TI.NumColumns);
    const uint8_t *P = TI.Data + size_t(Row - 1) * TI.RowSize + TI.ColOffset[Col];
    switch (TI.ColWidth[Col]) {
    case 1: return *P;
    case 2: return llvm::support::endian::read16le(P);
    default: return llvm::support::endian::read32le(P);
    }
  }
  /// A coded-index or row-index column as a token (row 0 for a null reference).
  Token getToken(TableId T, uint32_t Row, unsigned Col) const;
  /// File offset of a row (or of one of its cells), for messages.
  uint64_t rowOffset(TableId T, uint32_t Row, unsigned Col = 0) const;
  /// The raw bytes of a row.
  llvm::ArrayRef<uint8_t> rowBytes(TableId T, uint32_t Row) const;
  /// Whether a token names an existing row of a table this module has.
  bool isValidToken(Token T) const {
    unsigned Tab = T >> 24;
    return Tab < MaxTables && tableSpec(Tab).exists() && tokenRow(T) >= 1 &&
           tokenRow(T) <= Tables[Tab].Rows;
  }

  // --- heaps ---
  llvm::StringRef getString(uint32_t Offset) const;
  llvm::ArrayRef<uint8_t> getBlob(uint32_t Offset) const;
  /// File offset of the first byte of the blob's data (after its length).
  uint64_t blobFileOffset(uint32_t Offset) const;
  /// The 16 bytes of a #GUID entry (1-based), or null for index 0.
  const uint8_t *getGuid(uint32_t Index) const;
  /// A #US entry, checked (ldstr tokens are not validated up front).
  llvm::Expected<UserString> getUserString(uint32_t Offset) const;
  size_t stringHeapSize() const { return StringHeap.size(); }
  size_t blobHeapSize() const { return BlobHeap.size(); }
  size_t guidHeapSize() const { return GuidHeap.size(); }
  size_t userStringHeapSize() const { return USHeap.size(); }

  // --- member lists (through the *Ptr tables when present) ---
  RowRange typeFields(uint32_t TypeRow) const;
  RowRange typeMethods(uint32_t TypeRow) const;
  RowRange methodParams(uint32_t MethodRow) const;
  RowRange mapEvents(uint32_t EventMapRow) const;
  RowRange mapProperties(uint32_t PropertyMapRow) const;
  /// Maps a position in a member list to the row it names (identity without a *Ptr table).
  uint32_t field(uint32_t ListIndex) const { return viaPtr(TableId::FieldPtr, ListIndex); }
  uint32_t method(uint32_t ListIndex) const { return viaPtr(TableId::MethodPtr, ListIndex); }
  uint32_t param(uint32_t ListIndex) const { return viaPtr(TableId::ParamPtr, ListIndex); }
  uint32_t event(uint32_t ListIndex) const { return viaPtr(TableId::EventPtr, ListIndex); }
  uint32_t property(uint32_t ListIndex) const { return viaPtr(TableId::PropertyPtr, ListIndex); }

  // --- derived relations, built on first use (thread-safe) ---
  /// The TypeDef row declaring a field or method row (0 if none).
  uint32_t declaringTypeOfField(uint32_t FieldRow) const;
  uint32_t declaringTypeOfMethod(uint32_t MethodRow) const;
  /// The MethodDef row owning a Param row (0 if none).
  uint32_t methodOfParam(uint32_t ParamRow) const;
  /// The enclosing TypeDef row of a nested type (0 if not nested).
  uint32_t enclosingType(uint32_t TypeRow) const;
  llvm::ArrayRef<uint32_t> nestedTypes(uint32_t TypeRow) const;
  /// Rows of a table whose key column refers to \p Parent, in row order.
  llvm::ArrayRef<uint32_t> customAttributes(Token Parent) const;
  llvm::ArrayRef<uint32_t> genericParams(Token Owner) const;
  llvm::ArrayRef<uint32_t> genericParamConstraints(uint32_t GenericParamRow) const;
  llvm::ArrayRef<uint32_t> declSecurity(Token Parent) const;
  llvm::ArrayRef<uint32_t> semantics(Token EventOrProperty) const;
  llvm::ArrayRef<uint32_t> methodImpls(uint32_t TypeRow) const;
  llvm::ArrayRef<uint32_t> interfaceImpls(uint32_t TypeRow) const;
  /// Single rows (0 if none).
  uint32_t constant(Token Parent) const;
  uint32_t fieldMarshal(Token Parent) const;
  uint32_t implMap(Token Member) const;
  uint32_t classLayout(uint32_t TypeRow) const;
  uint32_t fieldLayout(uint32_t FieldRow) const;
  uint32_t fieldRVA(uint32_t FieldRow) const;
  uint32_t propertyMap(uint32_t TypeRow) const;
  uint32_t eventMap(uint32_t TypeRow) const;
  /// The MethodSemantics attributes of a method (0 if it is no accessor).
  uint16_t methodSemanticsOf(uint32_t MethodRow) const;
  /// The top-level TypeDef row named Namespace.Name, or 0.
  uint32_t findTypeDef(llvm::StringRef Namespace, llvm::StringRef Name) const;
  /// The ExportedType row (not nested) named Namespace.Name, or 0.
  uint32_t findExportedType(llvm::StringRef Namespace, llvm::StringRef Name) const;

private:
  Module() = default;
  llvm::Error parseRoot();
  llvm::Error parseTables(const StreamHeader &S);

  uint32_t viaPtr(TableId Ptr, uint32_t I) const {
    return hasTable(Ptr) && Tables[unsigned(Ptr)].Rows ? get(Ptr, I, 0) : I;
  }
  RowRange listRange(TableId Owner, unsigned Col, uint32_t Row, TableId Target) const;
  uint32_t listLimit(TableId Target) const;

  struct TableInfo {
    uint32_t Rows = 0;
    uint32_t RowSize = 0;
    const uint8_t *Data = nullptr;
    uint64_t FileOffset = 0;
    uint8_t NumColumns = 0;
    uint8_t ColOffset[10] = {};
    uint8_t ColWidth[10] = {};
  };

  /// Rows of one table grouped by the token in one of its columns.
  struct Relation {
    std::once_flag Once;
    std::vector<Token> Keys;    // sorted
    std::vector<uint32_t> Rows; // parallel to Keys
    llvm::ArrayRef<uint32_t> find(Token K) const;
  };
  enum RelationKind : unsigned {
    RelCustomAttribute,
    RelGenericParam,
    RelGenericParamConstraint,
    RelConstant,
    RelFieldMarshal,
    RelImplMap,
    RelClassLayout,
    RelFieldLayout,
    RelFieldRVA,
    RelDeclSecurity,
    RelSemantics,
    RelMethodImpl,
    RelInterfaceImpl,
    RelPropertyMap,
    RelEventMap,
    RelNested, // enclosing -> nested
    RelCount
  };
  const Relation &relation(RelationKind K) const;
  uint32_t single(RelationKind K, Token Key) const {
    llvm::ArrayRef<uint32_t> R = relation(K).find(Key);
    return R.empty() ? 0 : R.front();
  }

  struct NameIndex {
    std::once_flag Once;
    llvm::StringMap<uint32_t> TypeDefs, ExportedTypes; // "namespace\0name" -> row
  };
  const NameIndex &names() const;

  /// Row-to-owner maps, each built on first use (a weave asks for a method's type, seldom for a
  /// parameter's method).
  struct Owners {
    std::once_flag MembersOnce, ParamsOnce, NestingOnce, SemanticsOnce;
    std::vector<uint32_t> FieldOwner, MethodOwner, ParamOwner, Enclosing;
    std::vector<uint16_t> Semantics;
  };
  const Owners &memberOwners() const;
  const Owners &paramOwners() const;
  const Owners &nesting() const;
  const Owners &semantics() const;

  llvm::ArrayRef<uint8_t> Bytes;
  uint64_t FileOffset = 0;
  uint16_t Major = 0, Minor = 0, RootFlags = 0;
  std::string Version;
  std::vector<StreamHeader> Streams;
  bool Uncompressed = false;
  bool MinimalDelta = false; // "#JTD": every index is 4 bytes
  llvm::ArrayRef<uint8_t> StringHeap, BlobHeap, GuidHeap, USHeap;
  uint64_t StringHeapOffset = 0, BlobHeapOffset = 0, GuidHeapOffset = 0, USHeapOffset = 0;
  std::optional<PdbStream> Pdb;

  uint8_t TablesMajor = 0, TablesMinor = 0, HeapSizes = 0, TablesReserved = 1;
  uint32_t ExtraData = 0;
  llvm::ArrayRef<uint8_t> VersionField;
  uint64_t Valid = 0, Sorted = 0;
  std::array<TableInfo, MaxTables> Tables{};

  std::unique_ptr<Relation[]> Relations; // built lazily, each under its once_flag
  std::unique_ptr<Owners> OwnerData;
  std::unique_ptr<NameIndex> Names;
};

/// A standalone portable PDB is metadata on its own: it starts with the "BSJB" root signature.
bool looksLikePortablePdb(llvm::ArrayRef<uint8_t> Bytes);
/// A Windows PDB starts with the MSF 7.00 signature; weft does not read those.
bool looksLikeWindowsPdb(llvm::ArrayRef<uint8_t> Bytes);

} // namespace weft::metadata

#endif
