//===- metadata/pdb/SequencePoints.cpp - Portable PDB sequence points -----===//
#include "metadata/pdb/SequencePoints.h"

#include "metadata/Editor.h"
#include "metadata/Signature.h"
#include "support/ByteReader.h"
#include "support/Error.h"

#include "llvm/ADT/Twine.h"

using namespace llvm;

namespace weft::metadata::pdb {

namespace {

// Limits from the specification; larger values mean a damaged blob.
constexpr uint32_t MaxLine = 0x20000000;
constexpr uint32_t MaxColumn = 0x10000;
// Not from the specification: 64 KiB is longer than any path a compiler writes (Windows allows
// 32767 UTF-16 units).
constexpr size_t MaxDocumentName = 1 << 16;

} // namespace

Expected<std::vector<SequencePoint>> decodeSequencePoints(ArrayRef<uint8_t> Blob, uint32_t Document,
                                                          uint64_t FileOffset) {
  const char *Structure = "sequence points blob";
  ByteReader R(Blob, FileOffset);
  R.compressed(); // the local signature: not needed here
  if (!Document)
    Document = R.compressed();
  if (Error E = R.takeError(Structure))
    return std::move(E);
  if (!Document)
    return formatError(Structure, FileOffset, "no initial document");

  std::vector<SequencePoint> Out;
  uint64_t IL = 0;
  bool First = true, SeenVisible = false;
  int64_t Line = 0, Column = 0;
  // A failed read leaves the reader where it was: stop there (a document record that fails does
  // not break out of the loop by itself).
  while (R.ok() && !R.atEnd()) {
    uint64_t At = R.fileOffset();
    uint32_t DeltaIL = R.compressed();
    if (!First && DeltaIL == 0) {
      Document = R.compressed();
      if (R.ok() && !Document)
        return formatError(Structure, At, "document record naming no document");
      continue;
    }
    IL += DeltaIL;
    if (IL > 0xFFFFFFFFu)
      return formatError(Structure, At, "IL offset beyond 32 bits");
    First = false;
    uint32_t DeltaLines = R.compressed();
    int64_t DeltaColumns = DeltaLines == 0 ? int64_t(R.compressed()) : R.compressedSigned();
    if (!R.ok())
      break;
    if (DeltaLines > MaxLine || DeltaColumns > int64_t(MaxColumn) ||
        DeltaColumns < -int64_t(MaxColumn))
      return formatError(Structure, At, "line or column span out of range");
    SequencePoint P;
    P.ILOffset = uint32_t(IL);
    P.Document = Document;
    if (DeltaLines == 0 && DeltaColumns == 0) {
      P.StartLine = P.EndLine = HiddenLine;
      Out.push_back(P);
      continue;
    }
    if (!SeenVisible) {
      Line = R.compressed();
      Column = R.compressed();
      SeenVisible = true;
    } else {
      Line += R.compressedSigned();
      Column += R.compressedSigned();
    }
    if (!R.ok())
      break;
    int64_t EndLine = Line + DeltaLines, EndColumn = Column + DeltaColumns;
    if (Line < 0 || EndLine > MaxLine || Line == HiddenLine || Column < 0 || Column > MaxColumn ||
        EndColumn < 0 || EndColumn > MaxColumn)
      return formatError(Structure, At, "line or column out of range");
    P.StartLine = uint32_t(Line);
    P.EndLine = uint32_t(EndLine);
    P.StartColumn = uint32_t(Column);
    P.EndColumn = uint32_t(EndColumn);
    Out.push_back(P);
  }
  if (Error E = R.takeError(Structure))
    return std::move(E);
  return std::move(Out);
}

std::vector<uint8_t> encodeSequencePoints(ArrayRef<SequencePoint> Points, uint32_t LocalSignature,
                                          uint32_t Document) {
  std::vector<uint8_t> Out;
  appendCompressed(Out, LocalSignature);
  uint32_t Current = Document;
  if (!Current) {
    Current = Points.empty() ? 1 : Points.front().Document;
    appendCompressed(Out, Current);
  }
  uint32_t PrevIL = 0;
  int64_t PrevLine = 0, PrevColumn = 0;
  bool First = true, SeenVisible = false;
  for (const SequencePoint &P : Points) {
    if (!First && P.Document != Current) {
      Out.push_back(0);
      appendCompressed(Out, P.Document);
      Current = P.Document;
    }
    appendCompressed(Out, First ? P.ILOffset : P.ILOffset - PrevIL);
    First = false;
    PrevIL = P.ILOffset;
    if (P.isHidden()) {
      Out.push_back(0);
      Out.push_back(0);
      continue;
    }
    uint32_t DeltaLines = P.EndLine - P.StartLine;
    int64_t DeltaColumns = int64_t(P.EndColumn) - int64_t(P.StartColumn);
    appendCompressed(Out, DeltaLines);
    if (DeltaLines == 0)
      appendCompressed(Out, uint32_t(DeltaColumns));
    else
      appendCompressedSigned(Out, int32_t(DeltaColumns));
    if (!SeenVisible) {
      appendCompressed(Out, P.StartLine);
      appendCompressed(Out, P.StartColumn);
      SeenVisible = true;
    } else {
      appendCompressedSigned(Out, int32_t(int64_t(P.StartLine) - PrevLine));
      appendCompressedSigned(Out, int32_t(int64_t(P.StartColumn) - PrevColumn));
    }
    PrevLine = P.StartLine;
    PrevColumn = P.StartColumn;
  }
  return Out;
}

Expected<std::string> documentName(const Module &Pdb, uint32_t Row) {
  if (Row == 0 || Row > Pdb.rowCount(TableId::Document))
    return plainError("no Document row " + Twine(Row));
  uint32_t Blob = Pdb.get(TableId::Document, Row, DocumentCol::Name);
  ByteReader R(Pdb.getBlob(Blob), Pdb.blobFileOffset(Blob));
  char Separator = char(R.u8());
  std::string Name;
  bool FirstPart = true;
  while (R.ok() && !R.atEnd()) {
    uint64_t At = R.fileOffset();
    uint32_t Part = R.compressed();
    if (!R.ok())
      break;
    if (Part >= Pdb.blobHeapSize())
      return formatError("Document name blob", At, "part outside the #Blob heap");
    ArrayRef<uint8_t> Text = Pdb.getBlob(Part);
    // Each part may name the same large blob again: the name could be the blob heap's size
    // squared. No file system has paths this long.
    if (Name.size() + 1 + Text.size() > MaxDocumentName)
      return formatError("Document name blob", At,
                         "name longer than " + Twine(MaxDocumentName) + " bytes");
    if (!FirstPart && Separator)
      Name += Separator;
    FirstPart = false;
    Name.append(reinterpret_cast<const char *>(Text.data()), Text.size());
  }
  if (Error E = R.takeError("Document name blob"))
    return std::move(E);
  return std::move(Name);
}

Expected<std::vector<SequencePoint>> methodSequencePoints(const Module &Pdb, uint32_t MethodRow) {
  if (MethodRow == 0 || MethodRow > Pdb.rowCount(TableId::MethodDebugInformation))
    return std::vector<SequencePoint>();
  uint32_t Blob = Pdb.get(TableId::MethodDebugInformation, MethodRow,
                          MethodDebugInformationCol::SequencePoints);
  if (Blob == 0)
    return std::vector<SequencePoint>();
  uint32_t Document =
      Pdb.get(TableId::MethodDebugInformation, MethodRow, MethodDebugInformationCol::Document);
  Expected<std::vector<SequencePoint>> Points =
      decodeSequencePoints(Pdb.getBlob(Blob), Document, Pdb.blobFileOffset(Blob));
  if (!Points)
    return addContext(Points.takeError(), "MethodDebugInformation row " + Twine(MethodRow));
  uint32_t Documents = Pdb.rowCount(TableId::Document);
  for (const SequencePoint &P : *Points)
    if (P.Document > Documents)
      return formatError("MethodDebugInformation row " + Twine(MethodRow),
                         Pdb.rowOffset(TableId::MethodDebugInformation, MethodRow),
                         "sequence point in document " + Twine(P.Document) + " of " +
                             Twine(Documents));
  return Points;
}

Expected<std::unique_ptr<PortablePdb>> PortablePdb::open(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buf)
    return createFileError(Path, errorCodeToError(Buf.getError()));
  return fromBuffer(std::move(*Buf), Path);
}

Expected<std::unique_ptr<PortablePdb>> PortablePdb::fromBuffer(std::unique_ptr<MemoryBuffer> Buffer,
                                                               StringRef Name) {
  ArrayRef<uint8_t> Bytes = arrayRefFromStringRef(Buffer->getBuffer());
  if (!looksLikePortablePdb(Bytes))
    return createFileError(Name, plainError("not a portable PDB"));
  Expected<std::unique_ptr<Module>> M = Module::create(Bytes, 0);
  if (!M)
    return createFileError(Name, M.takeError());
  if (!(*M)->pdb())
    return createFileError(Name, plainError("metadata without a #Pdb stream"));
  auto P = std::unique_ptr<PortablePdb>(new PortablePdb());
  P->Buffer = std::move(Buffer);
  P->M = std::move(*M);
  return std::move(P);
}

} // namespace weft::metadata::pdb
