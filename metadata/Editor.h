//===- metadata/Editor.h - Token-preserving metadata edits ------*- C++ -*-===//
//
// Edits a module's metadata so that the output stays close to the input: existing rows keep their
// tokens, existing heap entries keep their offsets and new ones are appended, new rows go at the
// end of their tables (a new type's fields and methods after all existing ones), and tables that
// must be sorted are sorted again when written (rows of those tables are referred to by no IL
// token; the few metadata references to them are renumbered). Reference lookups return an equal
// existing row instead of adding a duplicate.
//
// Cell values are logical: heap offsets, row numbers, and for coded-index columns tokens; the
// widths on disk are worked out when the metadata is written.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_METADATA_EDITOR_H
#define WEFT_METADATA_EDITOR_H

#include "metadata/Module.h"

#include "llvm/ADT/ArrayRef.h"
#include "support/ContentIndex.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace weft::metadata {

struct AssemblyRefInfo {
  llvm::StringRef Name;
  uint16_t Version[4] = {0, 0, 0, 0};
  llvm::ArrayRef<uint8_t> PublicKeyOrToken;
  llvm::StringRef Culture;
  uint32_t Flags = 0;
};

class Editor;

/// Told of every row and user string an editor adds, as it adds them: the runtime profiler
/// mirrors them into the runtime's own metadata, where they must get the same tokens.
class EditObserver {
public:
  virtual ~EditObserver() = default;
  virtual void rowAdded(const Editor &E, TableId T, uint32_t Row) = 0;
  virtual void userStringAdded(const Editor &E, Token T, llvm::StringRef Utf8) = 0;
};

class Editor {
public:
  explicit Editor(const Module &M);
  const Module &original() const { return M; }
  /// Whether anything was changed (the metadata can then be copied as it is).
  bool modified() const { return Modified; }

  // --- rows ---
  uint32_t rowCount(TableId T) const;
  /// The logical value of a cell (a token for coded-index columns).
  uint32_t get(TableId T, uint32_t Row, unsigned Col) const;
  void set(TableId T, uint32_t Row, unsigned Col, uint32_t Value);
  /// Appends a row; \p Values has one logical value per column. Returns its row number.
  uint32_t addRow(TableId T, llvm::ArrayRef<uint32_t> Values);

  // --- heaps: the offset of an equal existing entry, or of a new one ---
  uint32_t string(llvm::StringRef S);
  uint32_t blob(llvm::ArrayRef<uint8_t> B);
  /// A new blob, without looking for an equal one (for blobs known to be new, such as the
  /// rewritten sequence points of a method: looking would index the whole heap).
  uint32_t newBlob(llvm::ArrayRef<uint8_t> B);
  uint32_t guid(const std::array<uint8_t, 16> &G);
  /// Indexes the string and blob heaps for string() and blob() now rather than on first use;
  /// \p Both runs its two tasks, at once if it can.
  void indexHeaps(llvm::function_ref<void(llvm::function_ref<void(unsigned)> Task)> Both);
  /// An ldstr token (0x70xxxxxx) for a UTF-8 string.
  llvm::Expected<Token> userString(llvm::StringRef Utf8);
  llvm::StringRef getString(uint32_t Offset) const;
  llvm::ArrayRef<uint8_t> getBlob(uint32_t Offset) const;

  // --- references: an equal existing row, or a new one ---
  Token assemblyRef(const AssemblyRefInfo &Info);
  Token moduleRef(llvm::StringRef Name);
  Token typeRef(Token Scope, llvm::StringRef Namespace, llvm::StringRef Name);
  Token memberRef(Token Parent, llvm::StringRef Name, llvm::ArrayRef<uint8_t> Signature);
  Token typeSpec(llvm::ArrayRef<uint8_t> Signature);
  Token methodSpec(Token Method, llvm::ArrayRef<uint8_t> Instantiation);
  Token standAloneSig(llvm::ArrayRef<uint8_t> Signature);

  // --- definitions ---
  /// A new type at the end of the TypeDef table (nested in \p Enclosing if given).
  Token addTypeDef(uint32_t Flags, llvm::StringRef Namespace, llvm::StringRef Name, Token Extends,
                   Token Enclosing = 0);
  /// A field or method of a type added with addTypeDef, which must be the last type.
  llvm::Expected<Token> addField(Token Type, uint16_t Flags, llvm::StringRef Name,
                                 llvm::ArrayRef<uint8_t> Signature);
  llvm::Expected<Token> addMethod(Token Type, uint16_t Flags, uint16_t ImplFlags,
                                  llvm::StringRef Name, llvm::ArrayRef<uint8_t> Signature);
  /// A parameter of a method added with addMethod, which must be the last method.
  llvm::Expected<Token> addParam(Token Method, uint16_t Flags, uint16_t Sequence,
                                 llvm::StringRef Name);
  void addCustomAttribute(Token Parent, Token Constructor, llvm::ArrayRef<uint8_t> Value);

  /// Writes the metadata (root, streams, tables, heaps) as a new blob.
  llvm::Expected<std::vector<uint8_t>> serialize();
  /// The same, appended to \p Out, whose size must be a multiple of four (an image being built,
  /// so that the metadata is not held twice).
  llvm::Error serializeInto(std::vector<uint8_t> &Out);

  /// Makes every table an editable copy (a test of the full write path).
  void materializeAll();

  /// Tells \p O of what is added from now on (null: no one).
  void setObserver(EditObserver *O) { Observer = O; }

private:
  /// A table's rows as edited. Untouched, it is read from the module. Rows added are held alone
  /// after the module's (First is the first added row), so that adding a method to a large module
  /// copies nothing; in a sorted table whose own rows are in order they are sorted among them
  /// when it is written (MergeAt) without copying those either. One column of the module's rows
  /// may be set cell by cell (the RVA the writer gives every method) and held on its own. Other
  /// changes hold every row (First is 1).
  struct Table {
    bool Touched = false;  // Rows and Cells say what the table holds
    bool Appended = false; // rows were added (sorted tables are sorted again)
    uint32_t Rows = 0;
    uint32_t First = 1; // the row of Cells' first
    std::vector<uint32_t> Cells;
    /// The column set cell by cell in the module's rows (-1: none), and its values by row - 1.
    int SetColumn = -1;
    std::vector<uint32_t> SetCells;
    /// Once a sorted table's added rows (Cells, in key order) are merged among the module's: the
    /// number of module rows before each. Empty: they follow the module's rows.
    std::vector<uint32_t> MergeAt;
    bool holdsAll() const { return Touched && First == 1; }
  };
  /// Every row of \p T held in its cells.
  Table &materialize(TableId T);
  /// \p T ready for a new row: the module's rows left where they are.
  Table &extend(TableId T);
  /// The module row that is row \p Row of \p Tab as edited, or 0 for a row held in Cells (its
  /// index there in \p Held).
  static uint32_t moduleRow(const Table &Tab, uint32_t Row, uint32_t &Held);
  /// Sorts the added rows of sorted table \p K.Table among the module's, whose rows must be in
  /// key order (false, and nothing changed, if they are not).
  bool mergeAdded(const SortKey &K);
  /// The rows of every table that refer to rows of \p T follow them to \p NewRow[old row].
  void renumberReferences(TableId T, llvm::ArrayRef<uint32_t> NewRow);
  /// Reference lookups: per table, the rows by a key of the cells that make two rows equal (heap
  /// entries by content), the first of equal rows kept; built on first use, kept up to date by
  /// addRow. The index holds hashes and rows; keys are made again to compare them.
  std::array<std::unique_ptr<ContentIndex>, MaxTables> Lookups;
  /// Appends the key of row \p Row of \p T to \p Out.
  void lookupKey(TableId T, uint32_t Row, std::string &Out) const;
  Token lookup(TableId T, const std::string &Key);
  void indexRow(TableId T, uint32_t Row);
  /// The key of a row of \p T, as the index compares it (valid until the next call).
  auto keyReader(TableId T) {
    return [this, T](uint32_t Row) {
      OtherKey.clear();
      lookupKey(T, Row, OtherKey);
      return llvm::arrayRefFromStringRef(OtherKey);
    };
  }
  std::string RowKey, OtherKey; // lookupKey's output, reused
  uint32_t findRow(TableId T, llvm::ArrayRef<std::pair<unsigned, uint32_t>> Key) const;
  void sortTables();

  const Module &M;
  bool Modified = false;
  EditObserver *Observer = nullptr;
  std::array<Table, MaxTables> Tables;

  struct Heap {
    std::vector<uint8_t> Added; // appended after the original bytes
    uint32_t OriginalSize = 0;
  };
  Heap Strings, Blobs, Guids, UserStrings;
  ContentIndex StringIndex, BlobIndex; // built on first lookup
  bool StringsIndexed = false, BlobsIndexed = false;
  void indexStrings();
  void indexBlobs();
  auto stringReader() const {
    return [this](uint32_t Off) { return llvm::arrayRefFromStringRef(getString(Off)); };
  }
  auto blobReader() const {
    return [this](uint32_t Off) { return getBlob(Off); };
  }
  uint32_t appendBlob(llvm::ArrayRef<uint8_t> B);
};

/// The byte encoding of a signature's TypeDefOrRefOrSpec token (ECMA-335 II.23.2.8).
void appendTypeDefOrRefEncoded(std::vector<uint8_t> &Out, Token T);
/// Appends a compressed unsigned integer (ECMA-335 II.23.2).
void appendCompressed(std::vector<uint8_t> &Out, uint32_t V);

} // namespace weft::metadata

#endif
