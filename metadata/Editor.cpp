//===- metadata/Editor.cpp - Token-preserving metadata edits --------------===//
#include "metadata/Editor.h"

#include "support/ByteReader.h"
#include "support/Error.h"
#include "support/Format.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cstring>
#include <numeric>

using namespace llvm;

namespace weft::metadata {

void appendCompressed(std::vector<uint8_t> &Out, uint32_t V) {
  if (V < 0x80) {
    Out.push_back(uint8_t(V));
  } else if (V < 0x4000) {
    Out.push_back(uint8_t(0x80 | (V >> 8)));
    Out.push_back(uint8_t(V));
  } else {
    Out.push_back(uint8_t(0xC0 | ((V >> 24) & 0x1F)));
    Out.push_back(uint8_t(V >> 16));
    Out.push_back(uint8_t(V >> 8));
    Out.push_back(uint8_t(V));
  }
}

void appendTypeDefOrRefEncoded(std::vector<uint8_t> &Out, Token T) {
  uint32_t Tag = tokenTable(T) == TableId::TypeDef ? 0 : tokenTable(T) == TableId::TypeRef ? 1 : 2;
  appendCompressed(Out, (tokenRow(T) << 2) | Tag);
}

namespace {

std::string tokenKey(Token T) { return std::string(reinterpret_cast<const char *>(&T), 4); }
std::string bytesKey(ArrayRef<uint8_t> B) {
  return std::string(reinterpret_cast<const char *>(B.data()), B.size());
}

bool isCoded(TableId T, unsigned Col) {
  return tableSpec(T).Columns[Col].Kind == ColumnKind::Coded;
}

void put(std::vector<uint8_t> &Out, uint32_t V, unsigned Width) {
  for (unsigned I = 0; I < Width; ++I)
    Out.push_back(uint8_t(V >> (8 * I)));
}

void pad4(std::vector<uint8_t> &Out) {
  while (Out.size() % 4)
    Out.push_back(0);
}

} // namespace

Editor::Editor(const Module &M) : M(M) {
  Strings.OriginalSize = uint32_t(M.stringHeapSize());
  Blobs.OriginalSize = uint32_t(M.blobHeapSize());
  Guids.OriginalSize = uint32_t(M.guidHeapSize());
  UserStrings.OriginalSize = uint32_t(M.userStringHeapSize());
}

// --- rows ---

uint32_t Editor::rowCount(TableId T) const {
  const Table &Tab = Tables[unsigned(T)];
  return Tab.Touched ? Tab.Rows : M.rowCount(T);
}

uint32_t Editor::moduleRow(const Table &Tab, uint32_t Row, uint32_t &Held) {
  if (!Tab.Touched)
    return Row;
  if (Tab.MergeAt.empty()) {
    Held = Row - Tab.First;
    return Row < Tab.First ? Row : 0;
  }
  // Added row I is row MergeAt[I] + I + 1. The first of them at or after Row: Row itself, or
  // the module row after the I added rows before it.
  const std::vector<uint32_t> &At = Tab.MergeAt;
  size_t I = 0, End = At.size();
  while (I < End) {
    size_t Mid = (I + End) / 2;
    if (At[Mid] + Mid + 1 < Row)
      I = Mid + 1;
    else
      End = Mid;
  }
  if (I < At.size() && At[I] + I + 1 == Row) {
    Held = uint32_t(I);
    return 0;
  }
  return Row - uint32_t(I);
}

uint32_t Editor::get(TableId T, uint32_t Row, unsigned Col) const {
  const Table &Tab = Tables[unsigned(T)];
  uint32_t Held = 0;
  uint32_t Own = moduleRow(Tab, Row, Held);
  if (!Own)
    return Tab.Cells[size_t(Held) * tableSpec(T).NumColumns + Col];
  if (int(Col) == Tab.SetColumn && Own - 1 < Tab.SetCells.size())
    return Tab.SetCells[Own - 1];
  return isCoded(T, Col) ? M.getToken(T, Own, Col) : M.get(T, Own, Col);
}

Editor::Table &Editor::materialize(TableId T) {
  Table &Tab = Tables[unsigned(T)];
  if (Tab.holdsAll())
    return Tab;
  unsigned Cols = tableSpec(T).NumColumns;
  uint32_t Rows = rowCount(T);
  // Made its full size once, with room for a few rows more.
  std::vector<uint32_t> Cells;
  Cells.reserve((size_t(Rows) + 16) * Cols);
  for (uint32_t R = 1; R <= Rows; ++R)
    for (unsigned C = 0; C < Cols; ++C)
      Cells.push_back(get(T, R, C));
  Tab.Cells = std::move(Cells);
  Tab.Rows = Rows;
  Tab.Touched = true;
  Tab.First = 1;
  Tab.SetColumn = -1;
  Tab.SetCells = {};
  Tab.MergeAt = {};
  return Tab;
}

Editor::Table &Editor::extend(TableId T) {
  Table &Tab = Tables[unsigned(T)];
  if (!Tab.MergeAt.empty()) // merged already: what is added now goes among every row
    return materialize(T);
  if (Tab.Touched)
    return Tab;
  Tab.Touched = true;
  Tab.Rows = M.rowCount(T);
  Tab.First = Tab.Rows + 1;
  return Tab;
}

void Editor::materializeAll() {
  for (unsigned T = 0; T < MaxTables; ++T)
    if (tableSpec(T).exists())
      materialize(TableId(T));
  Modified = true;
}

void Editor::set(TableId T, uint32_t Row, unsigned Col, uint32_t Value) {
  Table &Tab = Tables[unsigned(T)];
  Lookups[unsigned(T)].reset(); // the row's key may have changed
  Modified = true;
  unsigned Cols = tableSpec(T).NumColumns;
  if (Tab.MergeAt.empty() && Tab.Touched && Row >= Tab.First) { // a row held
    Tab.Cells[size_t(Row - Tab.First) * Cols + Col] = Value;
    return;
  }
  if (Tab.MergeAt.empty() && Row >= 1 && Row <= M.rowCount(T) &&
      (Tab.SetColumn < 0 || Tab.SetColumn == int(Col))) { // a module row's cell
    if (Tab.SetColumn < 0) {
      Tab.SetCells.resize(M.rowCount(T));
      for (uint32_t R = 1; R <= M.rowCount(T); ++R)
        Tab.SetCells[R - 1] = isCoded(T, Col) ? M.getToken(T, R, Col) : M.get(T, R, Col);
      Tab.SetColumn = int(Col);
    }
    Tab.SetCells[Row - 1] = Value;
    return;
  }
  materialize(T).Cells[size_t(Row - 1) * Cols + Col] = Value; // every row held
}

uint32_t Editor::addRow(TableId T, ArrayRef<uint32_t> Values) {
  Table &Tab = extend(T);
  assert(Values.size() == tableSpec(T).NumColumns);
  Tab.Cells.insert(Tab.Cells.end(), Values.begin(), Values.end());
  Tab.Appended = true;
  Modified = true;
  ++Tab.Rows;
  if (Lookups[unsigned(T)])
    indexRow(T, Tab.Rows);
  if (Observer)
    Observer->rowAdded(*this, T, Tab.Rows);
  return Tab.Rows;
}

void Editor::lookupKey(TableId T, uint32_t Row, std::string &Key) const {
  // The cells that make two references equal, with heap entries by content.
  auto Tok = [&](unsigned Col) {
    uint32_t V = get(T, Row, Col);
    Key.append(reinterpret_cast<const char *>(&V), 4);
  };
  auto Str = [&](unsigned Col) {
    Key += getString(get(T, Row, Col));
    Key += '\0';
  };
  auto Blob = [&](unsigned Col) {
    ArrayRef<uint8_t> B = getBlob(get(T, Row, Col));
    Key.append(reinterpret_cast<const char *>(B.data()), B.size());
  };
  switch (T) {
  case TableId::AssemblyRef:
    for (unsigned C : {AssemblyRefCol::MajorVersion, AssemblyRefCol::MinorVersion,
                       AssemblyRefCol::BuildNumber, AssemblyRefCol::RevisionNumber})
      Tok(C);
    Str(AssemblyRefCol::Name);
    Str(AssemblyRefCol::Culture);
    Blob(AssemblyRefCol::PublicKeyOrToken);
    break;
  case TableId::ModuleRef: Str(ModuleRefCol::Name); break;
  case TableId::TypeRef:
    Tok(TypeRefCol::ResolutionScope);
    Str(TypeRefCol::TypeNamespace);
    Str(TypeRefCol::TypeName);
    break;
  case TableId::MemberRef:
    Tok(MemberRefCol::Class);
    Str(MemberRefCol::Name);
    Blob(MemberRefCol::Signature);
    break;
  case TableId::TypeSpec: Blob(TypeSpecCol::Signature); break;
  case TableId::MethodSpec:
    Tok(MethodSpecCol::Method);
    Blob(MethodSpecCol::Instantiation);
    break;
  case TableId::StandAloneSig: Blob(StandAloneSigCol::Signature); break;
  default: break;
  }
}

void Editor::indexRow(TableId T, uint32_t Row) {
  RowKey.clear();
  lookupKey(T, Row, RowKey);
  Lookups[unsigned(T)]->insert(Row, arrayRefFromStringRef(RowKey), keyReader(T));
}

Token Editor::lookup(TableId T, const std::string &Key) {
  std::unique_ptr<ContentIndex> &Index = Lookups[unsigned(T)];
  if (!Index) {
    Index = std::make_unique<ContentIndex>();
    Index->reserve(rowCount(T)); // made its size once, not doubled from 64
    for (uint32_t R = 1; R <= rowCount(T); ++R)
      indexRow(T, R); // the first of equal rows stays
  }
  uint32_t Row = Index->find(arrayRefFromStringRef(Key), keyReader(T));
  return Row ? makeToken(T, Row) : 0;
}

// --- heaps ---

StringRef Editor::getString(uint32_t Offset) const {
  if (Offset < Strings.OriginalSize)
    return M.getString(Offset);
  size_t At = Offset - Strings.OriginalSize;
  if (At >= Strings.Added.size())
    return {};
  return StringRef(reinterpret_cast<const char *>(Strings.Added.data() + At));
}

ArrayRef<uint8_t> Editor::getBlob(uint32_t Offset) const {
  if (Offset < Blobs.OriginalSize)
    return M.getBlob(Offset);
  ArrayRef<uint8_t> Tail = ArrayRef<uint8_t>(Blobs.Added).drop_front(Offset - Blobs.OriginalSize);
  uint32_t Len = 0;
  unsigned N = decodeCompressed(Tail, Len);
  return N ? Tail.slice(N, Len) : ArrayRef<uint8_t>();
}

void Editor::indexHeaps(function_ref<void(function_ref<void(unsigned)>)> Both) {
  // Each task touches its own heap and index only.
  Both([&](unsigned Task) {
    if (Task == 0 && !StringsIndexed)
      indexStrings();
    else if (Task == 1 && !BlobsIndexed)
      indexBlobs();
  });
}

void Editor::indexStrings() {
  StringsIndexed = true;
  uint32_t Size = Strings.OriginalSize;
  StringRef Heap = toStringRef(M.streamBytes("#Strings")).take_front(Size);
  StringIndex.reserve(Heap.count('\0'));
  for (uint32_t Off = 1; Off < Size;) {
    StringRef S = M.getString(Off);
    if (!S.empty())
      StringIndex.insert(Off, arrayRefFromStringRef(S), stringReader());
    Off += uint32_t(S.size()) + 1;
  }
}

uint32_t Editor::string(StringRef S) {
  if (S.empty())
    return 0;
  if (!StringsIndexed)
    indexStrings();
  if (uint32_t Found = StringIndex.find(arrayRefFromStringRef(S), stringReader()))
    return Found;
  uint32_t Off = Strings.OriginalSize + uint32_t(Strings.Added.size());
  Strings.Added.insert(Strings.Added.end(), S.begin(), S.end());
  Strings.Added.push_back(0);
  StringIndex.insert(Off, arrayRefFromStringRef(S), stringReader());
  Modified = true;
  return Off;
}

void Editor::indexBlobs() {
  BlobsIndexed = true;
  // Compilers write blobs one after the other; a walk stops at anything that does not parse.
  // Counted first, so that the index is made its full size once.
  ArrayRef<uint8_t> Heap = M.streamBytes("#Blob").take_front(Blobs.OriginalSize);
  size_t Count = 0;
  for (uint64_t Off = 1; Off < Heap.size(); ++Count) {
    uint32_t Len = 0;
    unsigned N = decodeCompressed(Heap.drop_front(Off), Len);
    if (!N)
      break;
    Off += N + Len;
  }
  BlobIndex.reserve(Count);
  for (uint32_t Off = 1; Off < Blobs.OriginalSize;) {
    ArrayRef<uint8_t> Tail = M.getBlob(Off);
    uint32_t Len = 0;
    unsigned N = decodeCompressed(M.streamBytes("#Blob").drop_front(Off), Len);
    if (!N || Tail.size() != Len)
      break;
    BlobIndex.insert(Off, Tail, blobReader());
    Off += N + Len;
  }
}

uint32_t Editor::blob(ArrayRef<uint8_t> B) {
  if (B.empty() && Blobs.OriginalSize)
    return 0;
  if (!BlobsIndexed)
    indexBlobs();
  if (uint32_t Found = BlobIndex.find(B, blobReader()))
    return Found;
  uint32_t Off = appendBlob(B);
  BlobIndex.insert(Off, B, blobReader());
  return Off;
}

uint32_t Editor::appendBlob(ArrayRef<uint8_t> B) {
  if (Blobs.OriginalSize == 0 && Blobs.Added.empty())
    Blobs.Added.push_back(0); // offset 0 is the empty blob
  uint32_t Off = Blobs.OriginalSize + uint32_t(Blobs.Added.size());
  appendCompressed(Blobs.Added, uint32_t(B.size()));
  Blobs.Added.insert(Blobs.Added.end(), B.begin(), B.end());
  Modified = true;
  return Off;
}

uint32_t Editor::newBlob(ArrayRef<uint8_t> B) {
  if (!BlobsIndexed)
    return appendBlob(B);
  return blob(B);
}

uint32_t Editor::guid(const std::array<uint8_t, 16> &G) {
  for (uint32_t I = 1; I * 16 <= Guids.OriginalSize; ++I)
    if (std::memcmp(M.getGuid(I), G.data(), 16) == 0)
      return I;
  for (size_t I = 0; I < Guids.Added.size(); I += 16)
    if (std::memcmp(Guids.Added.data() + I, G.data(), 16) == 0)
      return uint32_t((Guids.OriginalSize + I) / 16 + 1);
  Guids.Added.insert(Guids.Added.end(), G.begin(), G.end());
  Modified = true;
  return uint32_t((Guids.OriginalSize + Guids.Added.size()) / 16);
}

Expected<Token> Editor::userString(StringRef Utf8) {
  SmallVector<UTF16, 64> Utf16;
  if (!convertUTF8ToUTF16String(Utf8, Utf16))
    return plainError("user string is not valid UTF-8");
  if (!Utf16.empty() && Utf16.back() == 0)
    Utf16.pop_back(); // convertUTF8ToUTF16String adds a terminator
  // The final byte says whether any character needs more than 8-bit handling (II.24.2.4).
  uint8_t Terminal = 0;
  for (UTF16 C : Utf16)
    if (C >= 0x100 || (C >= 0x01 && C <= 0x08) || (C >= 0x0E && C <= 0x1F) || C == 0x27 ||
        C == 0x2D || C == 0x7F)
      Terminal = 1;
  if (UserStrings.OriginalSize == 0 && UserStrings.Added.empty())
    UserStrings.Added.push_back(0);
  uint32_t Off = UserStrings.OriginalSize + uint32_t(UserStrings.Added.size());
  if (Off > 0xFFFFFF)
    return plainError("the #US heap is full (ldstr tokens address 16 MiB)");
  appendCompressed(UserStrings.Added, uint32_t(Utf16.size() * 2 + 1));
  for (UTF16 C : Utf16) {
    UserStrings.Added.push_back(uint8_t(C));
    UserStrings.Added.push_back(uint8_t(C >> 8));
  }
  UserStrings.Added.push_back(Terminal);
  Modified = true;
  Token T = (uint32_t(UserStringTokenType) << 24) | Off;
  if (Observer)
    Observer->userStringAdded(*this, T, Utf8);
  return T;
}

// --- references ---

Token Editor::assemblyRef(const AssemblyRefInfo &Info) {
  std::string Key;
  for (uint16_t V : Info.Version) {
    uint32_t W = V;
    Key.append(reinterpret_cast<const char *>(&W), 4);
  }
  Key += Info.Name.str() + '\0' + Info.Culture.str() + '\0';
  Key.append(reinterpret_cast<const char *>(Info.PublicKeyOrToken.data()),
             Info.PublicKeyOrToken.size());
  if (Token T = lookup(TableId::AssemblyRef, Key))
    return T;
  uint32_t Row =
      addRow(TableId::AssemblyRef,
             {Info.Version[0], Info.Version[1], Info.Version[2], Info.Version[3], Info.Flags,
              blob(Info.PublicKeyOrToken), string(Info.Name), string(Info.Culture), 0});
  return makeToken(TableId::AssemblyRef, Row);
}

Token Editor::moduleRef(StringRef Name) {
  if (Token T = lookup(TableId::ModuleRef, Name.str() + '\0'))
    return T;
  return makeToken(TableId::ModuleRef, addRow(TableId::ModuleRef, {string(Name)}));
}

Token Editor::typeRef(Token Scope, StringRef Namespace, StringRef Name) {
  if (Token T =
          lookup(TableId::TypeRef, tokenKey(Scope) + Namespace.str() + '\0' + Name.str() + '\0'))
    return T;
  return makeToken(TableId::TypeRef,
                   addRow(TableId::TypeRef, {Scope, string(Name), string(Namespace)}));
}

Token Editor::memberRef(Token Parent, StringRef Name, ArrayRef<uint8_t> Signature) {
  if (Token T =
          lookup(TableId::MemberRef, tokenKey(Parent) + Name.str() + '\0' + bytesKey(Signature)))
    return T;
  return makeToken(TableId::MemberRef,
                   addRow(TableId::MemberRef, {Parent, string(Name), blob(Signature)}));
}

Token Editor::typeSpec(ArrayRef<uint8_t> Signature) {
  if (Token T = lookup(TableId::TypeSpec, bytesKey(Signature)))
    return T;
  return makeToken(TableId::TypeSpec, addRow(TableId::TypeSpec, {blob(Signature)}));
}

Token Editor::methodSpec(Token Method, ArrayRef<uint8_t> Instantiation) {
  if (Token T = lookup(TableId::MethodSpec, tokenKey(Method) + bytesKey(Instantiation)))
    return T;
  return makeToken(TableId::MethodSpec, addRow(TableId::MethodSpec, {Method, blob(Instantiation)}));
}

Token Editor::standAloneSig(ArrayRef<uint8_t> Signature) {
  if (Token T = lookup(TableId::StandAloneSig, bytesKey(Signature)))
    return T;
  return makeToken(TableId::StandAloneSig, addRow(TableId::StandAloneSig, {blob(Signature)}));
}

// --- definitions ---

Token Editor::addTypeDef(uint32_t Flags, StringRef Namespace, StringRef Name, Token Extends,
                         Token Enclosing) {
  auto ListStart = [&](TableId Target) {
    TableId Ptr = ptrTableFor(Target);
    return (rowCount(Ptr) ? rowCount(Ptr) : rowCount(Target)) + 1;
  };
  uint32_t Row =
      addRow(TableId::TypeDef, {Flags, string(Name), string(Namespace), Extends,
                                ListStart(TableId::Field), ListStart(TableId::MethodDef)});
  if (tokenRow(Enclosing))
    addRow(TableId::NestedClass, {Row, tokenRow(Enclosing)});
  return makeToken(TableId::TypeDef, Row);
}

Expected<Token> Editor::addField(Token Type, uint16_t Flags, StringRef Name,
                                 ArrayRef<uint8_t> Signature) {
  if (tokenTable(Type) != TableId::TypeDef || tokenRow(Type) != rowCount(TableId::TypeDef))
    return plainError("fields can be added only to the last type (one added by the editor)");
  uint32_t Row = addRow(TableId::Field, {Flags, string(Name), blob(Signature)});
  if (rowCount(TableId::FieldPtr))
    addRow(TableId::FieldPtr, {Row});
  return makeToken(TableId::Field, Row);
}

Expected<Token> Editor::addMethod(Token Type, uint16_t Flags, uint16_t ImplFlags, StringRef Name,
                                  ArrayRef<uint8_t> Signature) {
  if (tokenTable(Type) != TableId::TypeDef || tokenRow(Type) != rowCount(TableId::TypeDef))
    return plainError("methods can be added only to the last type (one added by the editor)");
  uint32_t ParamStart =
      (rowCount(TableId::ParamPtr) ? rowCount(TableId::ParamPtr) : rowCount(TableId::Param)) + 1;
  uint32_t Row =
      addRow(TableId::MethodDef, {0, ImplFlags, Flags, string(Name), blob(Signature), ParamStart});
  if (rowCount(TableId::MethodPtr))
    addRow(TableId::MethodPtr, {Row});
  return makeToken(TableId::MethodDef, Row);
}

Expected<Token> Editor::addParam(Token Method, uint16_t Flags, uint16_t Sequence, StringRef Name) {
  if (tokenTable(Method) != TableId::MethodDef || tokenRow(Method) != rowCount(TableId::MethodDef))
    return plainError("parameters can be added only to the last method");
  uint32_t Row = addRow(TableId::Param, {Flags, Sequence, string(Name)});
  if (rowCount(TableId::ParamPtr))
    addRow(TableId::ParamPtr, {Row});
  return makeToken(TableId::Param, Row);
}

void Editor::addCustomAttribute(Token Parent, Token Constructor, ArrayRef<uint8_t> Value) {
  addRow(TableId::CustomAttribute, {Parent, Constructor, blob(Value)});
}

// --- sorting ---

namespace {

/// A row's sort key as encoded on disk (a coded index sorts by its encoded value): primary, then
/// secondary (0 when the table has none).
std::pair<uint32_t, uint32_t>
sortKey(const SortKey &K, function_ref<uint32_t(uint32_t Row, unsigned Col)> Get, uint32_t Row) {
  const TableSpec &Spec = tableSpec(K.Table);
  auto Encoded = [&](unsigned Col) -> uint32_t {
    uint32_t V = Get(Row, Col);
    if (Spec.Columns[Col].Kind != ColumnKind::Coded)
      return V;
    uint32_t E = 0;
    encodeCodedIndex(CodedIndex(Spec.Columns[Col].Arg), V, E);
    return E;
  };
  return {Encoded(K.Primary), K.Secondary >= 0 ? Encoded(unsigned(K.Secondary)) : 0};
}

} // namespace

void Editor::sortTables() {
  for (const SortKey &K : sortKeys()) {
    Table &Tab = Tables[unsigned(K.Table)];
    if (!Tab.Appended || (!Tab.holdsAll() && mergeAdded(K)))
      continue;
    materialize(K.Table);
    unsigned Cols = tableSpec(K.Table).NumColumns;
    auto Key = [&](uint32_t Row) {
      return sortKey(
          K, [&](uint32_t R, unsigned C) { return Tab.Cells[size_t(R) * Cols + C]; }, Row);
    };
    std::vector<uint32_t> Order(Tab.Rows);
    std::iota(Order.begin(), Order.end(), 0);
    std::stable_sort(Order.begin(), Order.end(),
                     [&](uint32_t A, uint32_t B) { return Key(A) < Key(B); });
    bool Identity = true;
    for (uint32_t I = 0; I < Order.size(); ++I)
      Identity = Identity && Order[I] == I;
    if (Identity)
      continue;
    std::vector<uint32_t> Cells(Tab.Cells.size());
    std::vector<uint32_t> NewRow(Tab.Rows + 1, 0); // old 1-based row -> new
    for (uint32_t I = 0; I < Order.size(); ++I) {
      std::copy_n(Tab.Cells.begin() + size_t(Order[I]) * Cols, Cols,
                  Cells.begin() + size_t(I) * Cols);
      NewRow[Order[I] + 1] = I + 1;
    }
    Tab.Cells = std::move(Cells);
    renumberReferences(K.Table, NewRow);
  }
}

bool Editor::mergeAdded(const SortKey &K) {
  Table &Tab = Tables[unsigned(K.Table)];
  if (!Tab.MergeAt.empty()) // merged before, and nothing added since (extend)
    return true;
  uint32_t Own = Tab.First - 1, Added = Tab.Rows - Own;
  unsigned Cols = tableSpec(K.Table).NumColumns;
  auto Get = [&](uint32_t Row, unsigned Col) { return get(K.Table, Row, Col); };
  std::pair<uint32_t, uint32_t> Previous = Own ? sortKey(K, Get, 1) : std::make_pair(0u, 0u);
  for (uint32_t R = 2; R <= Own; ++R) {
    std::pair<uint32_t, uint32_t> Key = sortKey(K, Get, R);
    if (Key < Previous)
      return false;
    Previous = Key;
  }
  // A stable sort of every row: the added rows in key order, each after the module rows whose
  // keys are not greater.
  std::vector<uint32_t> Order(Added);
  std::iota(Order.begin(), Order.end(), Own + 1);
  std::stable_sort(Order.begin(), Order.end(),
                   [&](uint32_t A, uint32_t B) { return sortKey(K, Get, A) < sortKey(K, Get, B); });
  std::vector<uint32_t> MergeAt(Added);
  for (uint32_t I = 0; I < Added; ++I) {
    std::pair<uint32_t, uint32_t> Of = sortKey(K, Get, Order[I]);
    uint32_t Lo = 0, Hi = Own; // the module rows not after it: [1, Lo]
    while (Lo < Hi) {
      uint32_t Mid = (Lo + Hi + 1) / 2;
      if (Of < sortKey(K, Get, Mid))
        Hi = Mid - 1;
      else
        Lo = Mid;
    }
    MergeAt[I] = Lo;
  }
  bool Identity = true;
  for (uint32_t I = 0; I < Added; ++I)
    Identity = Identity && Order[I] == Own + 1 + I && MergeAt[I] == Own;
  if (Identity)
    return true;
  std::vector<uint32_t> Cells(Tab.Cells.size());
  for (uint32_t I = 0; I < Added; ++I)
    std::copy_n(Tab.Cells.begin() + size_t(Order[I] - Tab.First) * Cols, Cols,
                Cells.begin() + size_t(I) * Cols);
  // Where every row goes: a module row after the added rows merged before it.
  std::vector<uint32_t> NewRow(Tab.Rows + 1, 0);
  for (uint32_t R = 1, I = 0; R <= Own; ++R) {
    while (I < Added && MergeAt[I] < R)
      ++I;
    NewRow[R] = R + I;
  }
  for (uint32_t I = 0; I < Added; ++I)
    NewRow[Order[I]] = MergeAt[I] + I + 1;
  Tab.Cells = std::move(Cells);
  Tab.MergeAt = std::move(MergeAt);
  renumberReferences(K.Table, NewRow);
  return true;
}

void Editor::renumberReferences(TableId Target, ArrayRef<uint32_t> NewRow) {
  for (unsigned T = 0; T < MaxTables; ++T) {
    const TableSpec &S = tableSpec(T);
    for (unsigned C = 0; C < S.NumColumns; ++C) {
      const ColumnSpec &Col = S.Columns[C];
      bool Refers = Col.Kind == ColumnKind::Idx && TableId(Col.Arg) == Target;
      if (Col.Kind == ColumnKind::Coded) {
        const CodedIndexSpec &CS = codedIndexSpec(CodedIndex(Col.Arg));
        for (unsigned Tag = 0; Tag < CS.NumTags; ++Tag)
          Refers = Refers || CS.Tables[Tag] == Target;
      }
      if (!Refers || !rowCount(TableId(T)))
        continue;
      Table &Other = materialize(TableId(T));
      for (uint32_t R = 0; R < Other.Rows; ++R) {
        uint32_t &V = Other.Cells[size_t(R) * S.NumColumns + C];
        if (Col.Kind == ColumnKind::Idx && V && V < NewRow.size())
          V = NewRow[V];
        else if (Col.Kind == ColumnKind::Coded && tokenTable(V) == Target && tokenRow(V) &&
                 tokenRow(V) < NewRow.size())
          V = makeToken(Target, NewRow[tokenRow(V)]);
      }
    }
  }
}

// --- writing ---

Expected<std::vector<uint8_t>> Editor::serialize() {
  std::vector<uint8_t> Out;
  if (Error E = serializeInto(Out))
    return std::move(E);
  return std::move(Out);
}

Error Editor::serializeInto(std::vector<uint8_t> &Out) {
  sortTables();
  // A heap is its original bytes followed by what was added, padded to four bytes; it is written
  // from those two parts without being copied first.
  struct HeapParts {
    ArrayRef<uint8_t> Original, Added;
    size_t size() const { return (Original.size() + Added.size() + 3) & ~size_t(3); }
    bool empty() const { return Original.empty() && Added.empty(); }
  };
  auto Parts = [&](StringRef Name, const Heap &H) {
    return HeapParts{M.streamBytes(Name), H.Added};
  };
  HeapParts StringHeap = Parts("#Strings", Strings), BlobHeap = Parts("#Blob", Blobs),
            GuidHeap = Parts("#GUID", Guids), USHeap = Parts("#US", UserStrings);

  uint8_t HeapSizes = M.heapSizes();
  if (StringHeap.size() > 0xFFFF)
    HeapSizes |= 0x01;
  if (GuidHeap.size() / 16 > 0xFFFF)
    HeapSizes |= 0x02;
  if (BlobHeap.size() > 0xFFFF)
    HeapSizes |= 0x04;

  uint32_t Rows[MaxTables] = {};
  uint64_t Valid = M.validMask();
  for (unsigned T = 0; T < MaxTables; ++T) {
    if (!tableSpec(T).exists())
      continue;
    Rows[T] = rowCount(TableId(T));
    if (Rows[T] > 0xFFFFFF)
      return plainError(Twine("table ") + tableName(T) + " has more rows than tokens can address");
    if (Rows[T])
      Valid |= uint64_t(1) << T;
  }
  uint32_t RefRows[MaxTables];
  for (unsigned T = 0; T < MaxTables; ++T)
    RefRows[T] = (Rows[T] || !M.pdb()) ? Rows[T] : M.pdb()->TypeSystemRows[T];
  ColumnWidths W;
  computeColumnWidths(RefRows, HeapSizes, M.allIndicesLarge(), W);

  // The table stream, written straight into Out where it goes; its size is known beforehand.
  std::string TableName = M.isUncompressed() ? "#-" : "#~";
  // Whatever followed the rows in the original stream (writers leave zero bytes there) stays.
  // The stream's header: fixed fields, a row count per present table, the extra data field.
  auto TablesHeaderSize = [](uint64_t Present, uint8_t Sizes) {
    return 24 + 4 * size_t(llvm::countPopulation(Present)) + ((Sizes & 0x40) ? 4 : 0);
  };
  ArrayRef<uint8_t> OrigTS = M.streamBytes(TableName);
  size_t OrigContent = TablesHeaderSize(M.validMask(), M.heapSizes());
  for (unsigned T = 0; T < MaxTables; ++T)
    if (tableSpec(T).exists())
      OrigContent += size_t(M.rowCount(TableId(T))) * M.rowSize(TableId(T));
  ArrayRef<uint8_t> Trailing =
      OrigTS.size() > OrigContent ? OrigTS.drop_front(OrigContent) : ArrayRef<uint8_t>();
  size_t TablesSize = TablesHeaderSize(Valid, HeapSizes);
  for (unsigned T = 0; T < MaxTables; ++T)
    if (((Valid >> T) & 1) && Rows[T])
      TablesSize += size_t(Rows[T]) * W.RowSize[T];
  TablesSize = (TablesSize + Trailing.size() + 3) & ~size_t(3);
  auto WriteTables = [&](std::vector<uint8_t> &TS) -> Error {
    size_t Start = TS.size();
    put(TS, 0, 4);
    TS.push_back(M.tablesMajor());
    TS.push_back(M.tablesMinor());
    TS.push_back(HeapSizes);
    TS.push_back(M.tablesReservedByte());
    put(TS, uint32_t(Valid), 4);
    put(TS, uint32_t(Valid >> 32), 4);
    put(TS, uint32_t(M.sortedMask()), 4);
    put(TS, uint32_t(M.sortedMask() >> 32), 4);
    for (unsigned T = 0; T < MaxTables; ++T)
      if ((Valid >> T) & 1)
        put(TS, Rows[T], 4);
    if (HeapSizes & 0x40)
      put(TS, M.tablesExtraData(), 4);
    for (unsigned T = 0; T < MaxTables; ++T) {
      if (!((Valid >> T) & 1) || !Rows[T])
        continue;
      const TableSpec &Spec = tableSpec(T);
      const Table &Tab = Tables[T];
      bool SameWidths = true;
      for (unsigned C = 0; C < Spec.NumColumns; ++C)
        SameWidths = SameWidths && W.Width[T][C] == M.columnWidth(TableId(T), C);
      // The module's rows as they are when their widths stay (a column set in them written
      // over); the others cell by cell.
      auto Cell = [&](uint32_t R, unsigned C, uint32_t &V) -> Error {
        V = get(TableId(T), R, C);
        if (Spec.Columns[C].Kind != ColumnKind::Coded)
          return Error::success();
        uint32_t E = 0;
        if (!encodeCodedIndex(CodedIndex(Spec.Columns[C].Arg), V, E))
          return plainError(Twine("table ") + tableName(T) + " row " + Twine(R) + " column " +
                            Spec.Columns[C].Name + ": " + tableName(tokenTable(V)) +
                            " cannot be named by this coded index");
        V = E;
        return Error::success();
      };
      size_t SetAt = 0; // the set column's place in a row
      for (int C = 0; C < Tab.SetColumn; ++C)
        SetAt += W.Width[T][C];
      for (uint32_t R = 1; R <= Rows[T];) {
        uint32_t Held = 0, Own = moduleRow(Tab, R, Held);
        if (!SameWidths || !Own) {
          for (unsigned C = 0; C < Spec.NumColumns; ++C) {
            uint32_t V = 0;
            if (Error E = Cell(R, C, V))
              return E;
            put(TS, V, W.Width[T][C]);
          }
          ++R;
          continue;
        }
        // The run of module rows that stay together, copied at once.
        uint32_t N = 1;
        while (R + N <= Rows[T] && moduleRow(Tab, R + N, Held) == Own + N)
          ++N;
        size_t RowSize = M.rowSize(TableId(T)), At = TS.size();
        const uint8_t *Bytes = M.rowBytes(TableId(T), Own).data();
        TS.insert(TS.end(), Bytes, Bytes + N * RowSize);
        for (uint32_t K = 0; Tab.SetColumn >= 0 && K < N; ++K) {
          uint32_t V = 0;
          if (Error E = Cell(R + K, unsigned(Tab.SetColumn), V))
            return E;
          for (unsigned B = 0; B < W.Width[T][Tab.SetColumn]; ++B)
            TS[At + K * RowSize + SetAt + B] = uint8_t(V >> (8 * B));
        }
        R += N;
      }
    }
    TS.insert(TS.end(), Trailing.begin(), Trailing.end());
    pad4(TS);
    if (TS.size() - Start != TablesSize)
      return plainError("the table stream came out " + Twine(TS.size() - Start) +
                        " bytes long, not the " + Twine(TablesSize) + " laid out for it");
    return Error::success();
  };

  // The streams, in the original order; heaps that were missing and are needed now go last.
  struct Stream {
    std::string Name;
    HeapParts Data;
    size_t TablesSize = 0; // the table stream's, which WriteTables writes; 0 for the others
    size_t size() const { return TablesSize ? TablesSize : Data.size(); }
  };
  std::vector<Stream> Streams;
  auto Has = [&](StringRef Name) {
    return std::any_of(Streams.begin(), Streams.end(),
                       [&](const Stream &S) { return S.Name == Name; });
  };
  for (const StreamHeader &S : M.streams()) {
    if (Has(S.Name))
      continue; // a repeated stream name: the reader used the first
    if (S.Name == "#~" || S.Name == "#-")
      Streams.push_back({S.Name, {}, TablesSize});
    else if (S.Name == "#Strings")
      Streams.push_back({S.Name, StringHeap});
    else if (S.Name == "#Blob")
      Streams.push_back({S.Name, BlobHeap});
    else if (S.Name == "#GUID")
      Streams.push_back({S.Name, GuidHeap});
    else if (S.Name == "#US")
      Streams.push_back({S.Name, USHeap});
    else
      Streams.push_back({S.Name, {M.bytes().slice(S.Offset, S.Size), {}}});
  }
  if (!Has("#Strings") && !StringHeap.empty())
    Streams.push_back({"#Strings", StringHeap});
  if (!Has("#US") && !USHeap.empty())
    Streams.push_back({"#US", USHeap});
  if (!Has("#GUID") && !GuidHeap.empty())
    Streams.push_back({"#GUID", GuidHeap});
  if (!Has("#Blob") && !BlobHeap.empty())
    Streams.push_back({"#Blob", BlobHeap});

  // The root. Bytes some writers leave between the stream headers and the first stream are kept.
  ArrayRef<uint8_t> Version = M.versionField();
  auto HeaderSize = [](StringRef Name) { return 8 + ((Name.size() + 1 + 3) & ~size_t(3)); };
  size_t RootSize = 20 + ((Version.size() + 3) & ~size_t(3));
  size_t OriginalHeadersEnd = RootSize;
  uint64_t FirstStream = M.bytes().size();
  for (const StreamHeader &S : M.streams()) {
    OriginalHeadersEnd += HeaderSize(S.Name);
    FirstStream = std::min<uint64_t>(FirstStream, S.Offset);
  }
  ArrayRef<uint8_t> Gap;
  if (FirstStream > OriginalHeadersEnd && (FirstStream - OriginalHeadersEnd) % 4 == 0)
    Gap = M.bytes().slice(OriginalHeadersEnd, FirstStream - OriginalHeadersEnd);
  size_t Total = RootSize + Gap.size();
  for (const Stream &S : Streams)
    Total += HeaderSize(S.Name) + S.size();
  assert(Out.size() % 4 == 0 && "the streams' padding counts from a four-byte boundary");
  Out.reserve(Out.size() + Total);
  put(Out, 0x424A5342, 4);
  put(Out, M.majorVersion(), 2);
  put(Out, M.minorVersion(), 2);
  put(Out, 0, 4);
  put(Out, uint32_t((Version.size() + 3) & ~3u), 4);
  Out.insert(Out.end(), Version.begin(), Version.end());
  pad4(Out);
  put(Out, M.rootFlags(), 2);
  put(Out, uint32_t(Streams.size()), 2);
  uint32_t Offset = uint32_t(Total);
  for (const Stream &S : Streams)
    Offset -= uint32_t(S.size());
  for (const Stream &S : Streams) {
    put(Out, Offset, 4);
    put(Out, uint32_t(S.size()), 4);
    Out.insert(Out.end(), S.Name.begin(), S.Name.end());
    Out.push_back(0);
    pad4(Out);
    Offset += uint32_t(S.size());
  }
  Out.insert(Out.end(), Gap.begin(), Gap.end());
  for (const Stream &S : Streams) {
    if (S.TablesSize) {
      if (Error E = WriteTables(Out))
        return E;
      continue;
    }
    Out.insert(Out.end(), S.Data.Original.begin(), S.Data.Original.end());
    Out.insert(Out.end(), S.Data.Added.begin(), S.Data.Added.end());
    pad4(Out);
  }
  return Error::success();
}

} // namespace weft::metadata
