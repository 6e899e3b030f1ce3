//===- iltext/RawDump.cpp - Raw structures of a file ----------------------===//
#include "iltext/RawDump.h"

#include "il/BodyReader.h"
#include "metadata/Module.h"
#include "metadata/Schema.h"
#include "pe/Image.h"
#include "support/ByteReader.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

using namespace llvm;
using namespace weft::metadata;

namespace weft::text {

namespace {

raw_ostream &field(raw_ostream &OS, StringRef Name, unsigned Indent = 2) {
  return OS.indent(Indent) << left_justify(Name, 26) << ' ';
}

void dumpHeaders(raw_ostream &OS, const pe::Image &Img) {
  const pe::CoffHeader &C = Img.coff();
  const pe::OptionalHeader &O = Img.optional();
  OS << "DOS header\n";
  field(OS, "e_lfanew") << format_hex(Img.peHeaderOffset(), 10) << '\n';
  OS << "COFF header @" << format_hex(Img.peHeaderOffset() + 4, 10) << '\n';
  field(OS, "Machine") << format_hex(C.Machine, 6) << ' ' << pe::machineName(C.Machine) << '\n';
  field(OS, "NumberOfSections") << C.NumberOfSections << '\n';
  field(OS, "TimeDateStamp") << format_hex(C.TimeDateStamp, 10) << '\n';
  field(OS, "PointerToSymbolTable") << format_hex(C.PointerToSymbolTable, 10) << '\n';
  field(OS, "NumberOfSymbols") << C.NumberOfSymbols << '\n';
  field(OS, "SizeOfOptionalHeader") << C.SizeOfOptionalHeader << '\n';
  field(OS, "Characteristics") << format_hex(C.Characteristics, 6) << '\n';
  OS << (O.PE32Plus ? "PE32+" : "PE32") << " optional header\n";
  field(OS, "LinkerVersion") << unsigned(O.MajorLinkerVersion) << '.'
                             << unsigned(O.MinorLinkerVersion) << '\n';
  field(OS, "SizeOfCode") << format_hex(O.SizeOfCode, 10) << '\n';
  field(OS, "SizeOfInitializedData") << format_hex(O.SizeOfInitializedData, 10) << '\n';
  field(OS, "SizeOfUninitializedData") << format_hex(O.SizeOfUninitializedData, 10) << '\n';
  field(OS, "AddressOfEntryPoint") << format_hex(O.AddressOfEntryPoint, 10) << '\n';
  field(OS, "BaseOfCode") << format_hex(O.BaseOfCode, 10) << '\n';
  if (!O.PE32Plus)
    field(OS, "BaseOfData") << format_hex(O.BaseOfData, 10) << '\n';
  field(OS, "ImageBase") << format_hex(O.ImageBase, O.PE32Plus ? 18 : 10) << '\n';
  field(OS, "SectionAlignment") << format_hex(O.SectionAlignment, 10) << '\n';
  field(OS, "FileAlignment") << format_hex(O.FileAlignment, 10) << '\n';
  field(OS, "OSVersion") << O.MajorOSVersion << '.' << O.MinorOSVersion << '\n';
  field(OS, "ImageVersion") << O.MajorImageVersion << '.' << O.MinorImageVersion << '\n';
  field(OS, "SubsystemVersion") << O.MajorSubsystemVersion << '.' << O.MinorSubsystemVersion
                                << '\n';
  field(OS, "SizeOfImage") << format_hex(O.SizeOfImage, 10) << '\n';
  field(OS, "SizeOfHeaders") << format_hex(O.SizeOfHeaders, 10) << '\n';
  field(OS, "CheckSum") << format_hex(O.CheckSum, 10) << '\n';
  field(OS, "Subsystem") << O.Subsystem << ' ' << pe::subsystemName(O.Subsystem) << '\n';
  field(OS, "DllCharacteristics") << format_hex(O.DllCharacteristics, 6) << '\n';
  field(OS, "SizeOfStackReserve") << format_hex(O.SizeOfStackReserve, 10) << '\n';
  field(OS, "SizeOfStackCommit") << format_hex(O.SizeOfStackCommit, 10) << '\n';
  field(OS, "SizeOfHeapReserve") << format_hex(O.SizeOfHeapReserve, 10) << '\n';
  field(OS, "SizeOfHeapCommit") << format_hex(O.SizeOfHeapCommit, 10) << '\n';
  field(OS, "LoaderFlags") << format_hex(O.LoaderFlags, 10) << '\n';
  field(OS, "NumberOfRvaAndSizes") << O.NumberOfRvaAndSizes << '\n';
  OS << "Data directories\n";
  for (unsigned I = 0; I < pe::DirCount; ++I) {
    pe::DataDirectory D = Img.directory(I);
    if (D.empty())
      continue;
    field(OS, pe::directoryName(I))
        << "RVA " << format_hex(D.RVA, 10) << " size " << format_hex(D.Size, 10) << '\n';
  }
  OS << "Sections\n";
  for (const pe::Section &S : Img.sections())
    OS << "  " << left_justify(S.Name, 8) << " VA " << format_hex(S.VirtualAddress, 10) << " VSize "
       << format_hex(S.VirtualSize, 10) << " raw " << format_hex(S.PointerToRawData, 10) << " size "
       << format_hex(S.SizeOfRawData, 10) << " flags " << format_hex(S.Characteristics, 10) << '\n';
}

void dumpCli(raw_ostream &OS, const pe::CliHeader &H) {
  OS << "CLI header @" << format_hex(H.FileOffset, 10) << '\n';
  field(OS, "cb") << H.Cb << '\n';
  field(OS, "RuntimeVersion") << H.MajorRuntimeVersion << '.' << H.MinorRuntimeVersion << '\n';
  auto Dir = [&](StringRef N, const pe::DataDirectory &D) {
    field(OS, N) << "RVA " << format_hex(D.RVA, 10) << " size " << format_hex(D.Size, 10) << '\n';
  };
  Dir("MetaData", H.Metadata);
  field(OS, "Flags") << format_hex(H.Flags, 10) << '\n';
  field(OS, "EntryPoint") << format_hex(H.EntryPoint, 10) << '\n';
  Dir("Resources", H.Resources);
  Dir("StrongNameSignature", H.StrongNameSignature);
  Dir("CodeManagerTable", H.CodeManagerTable);
  Dir("VTableFixups", H.VTableFixups);
  Dir("ExportAddressTableJumps", H.ExportAddressTableJumps);
  Dir("ManagedNativeHeader", H.ManagedNativeHeader);
}

Error dumpDebugAndR2R(raw_ostream &OS, const pe::Image &Img) {
  Error First = Error::success();
  Expected<std::vector<pe::DebugEntry>> D = Img.debugEntries();
  if (!D) {
    OS << "Debug directory: error: " << toString(D.takeError()) << '\n';
    // Checked before it is replaced, as every Error must be.
    if (!First)
      First = plainError("the debug directory is malformed");
  } else if (!D->empty()) {
    OS << "Debug directory\n";
    for (const pe::DebugEntry &E : *D) {
      OS << "  @" << format_hex(E.EntryOffset, 10) << ' '
         << left_justify(pe::debugTypeName(E.Type), 20) << " version " << E.MajorVersion << '.'
         << format_hex(E.MinorVersion, 6) << " size " << format_hex(E.SizeOfData, 10) << " RVA "
         << format_hex(E.AddressOfRawData, 10) << " raw " << format_hex(E.PointerToRawData, 10)
         << '\n';
      if (E.CV)
        OS << "    CodeView RSDS guid " << toHex(E.CV->Guid) << " age " << E.CV->Age << " path '"
           << E.CV->Path << "'\n";
      if (E.Embedded)
        OS << "    embedded PDB: " << E.Embedded->UncompressedSize << " bytes uncompressed, "
           << E.Embedded->Compressed.size() << " compressed\n";
      if (E.Checksum)
        OS << "    checksum " << E.Checksum->Algorithm << ' ' << toHex(E.Checksum->Checksum)
           << '\n';
    }
  }
  if (Img.isReadyToRun()) {
    Expected<pe::ReadyToRunHeader> H = Img.readyToRunHeader();
    if (!H) {
      OS << "ReadyToRun header: error: " << toString(H.takeError()) << '\n';
      if (!First)
        First = plainError("the ReadyToRun header is malformed");
    } else {
      OS << "ReadyToRun header version " << H->MajorVersion << '.' << H->MinorVersion << " flags "
         << format_hex(H->Flags, 10) << " (" << pe::readyToRunFlagNames(H->Flags) << "), "
         << H->Sections.size() << " sections\n";
      for (const auto &S : H->Sections)
        OS << "  type " << S.Type << " RVA " << format_hex(S.Where.RVA, 10) << " size "
           << format_hex(S.Where.Size, 10) << '\n';
    }
  }
  return First;
}

void dumpCell(raw_ostream &OS, const Module &M, TableId T, uint32_t Row, unsigned Col) {
  const ColumnSpec &CS = tableSpec(T).Columns[Col];
  uint32_t V = M.get(T, Row, Col);
  OS << CS.Name << '=';
  switch (CS.Kind) {
  case ColumnKind::U8:
  case ColumnKind::U16:
  case ColumnKind::U32:
    OS << format_hex(V, CS.Kind == ColumnKind::U8 ? 4 : CS.Kind == ColumnKind::U16 ? 6 : 10);
    return;
  case ColumnKind::Str:
    OS << "#Strings[" << format_hex(V, 1) << ']';
    if (V < M.stringHeapSize()) {
      StringRef S = M.getString(V);
      OS << " \"";
      OS.write_escaped(S.take_front(80));
      OS << (S.size() > 80 ? "...\"" : "\"");
    } else {
      OS << " <out of range>";
    }
    return;
  case ColumnKind::Guid: OS << "#GUID[" << V << ']'; return;
  case ColumnKind::Blob: {
    OS << "#Blob[" << format_hex(V, 1) << ']';
    ArrayRef<uint8_t> B = M.getBlob(V);
    if (V && B.empty() && V >= M.blobHeapSize())
      OS << " <out of range>";
    else
      OS << " (" << B.size() << " bytes)";
    return;
  }
  case ColumnKind::Idx: OS << tableName(CS.Arg) << '[' << V << ']'; return;
  case ColumnKind::Coded: {
    Token Tok;
    if (decodeCodedIndex(CodedIndex(CS.Arg), V, Tok))
      OS << tableName(tokenTable(Tok)) << '[' << tokenRow(Tok) << ']';
    else
      OS << "<bad coded index " << format_hex(V, 1) << '>';
    return;
  }
  }
}

void dumpMetadata(raw_ostream &OS, const Module &M) {
  OS << "Metadata root @" << format_hex(M.fileOffset(), 10) << '\n';
  field(OS, "Version") << M.majorVersion() << '.' << M.minorVersion() << " \"" << M.versionString()
                       << "\"\n";
  OS << "Streams\n";
  for (const StreamHeader &S : M.streams())
    OS << "  " << left_justify(S.Name, 10) << " offset " << format_hex(S.Offset, 10) << " size "
       << format_hex(S.Size, 10) << " (header @" << format_hex(S.HeaderOffset, 10) << ")\n";
  OS << "Table stream\n";
  field(OS, "Version") << unsigned(M.tablesMajor()) << '.' << unsigned(M.tablesMinor()) << '\n';
  field(OS, "HeapSizes") << format_hex(M.heapSizes(), 4) << '\n';
  field(OS, "Valid") << format_hex(M.validMask(), 18) << '\n';
  field(OS, "Sorted") << format_hex(M.sortedMask(), 18) << '\n';
  if (M.pdb()) {
    OS << "#Pdb stream\n";
    field(OS, "Id") << toHex(M.pdb()->Id) << '\n';
    field(OS, "EntryPoint") << format_hex(M.pdb()->EntryPoint, 10) << '\n';
    field(OS, "ReferencedTables") << format_hex(M.pdb()->ReferencedTypeSystemTables, 18) << '\n';
  }
  for (unsigned T = 0; T < MaxTables; ++T) {
    if (!M.hasTable(TableId(T)))
      continue;
    uint32_t N = M.rowCount(TableId(T));
    OS << "Table " << format_hex(T, 4) << ' ' << tableName(T) << ": " << N << " rows of "
       << M.rowSize(TableId(T)) << " bytes";
    if (N)
      OS << " @" << format_hex(M.rowOffset(TableId(T), 1), 10);
    OS << '\n';
    for (uint32_t R = 1; R <= N; ++R) {
      OS << "  [" << R << ']';
      for (unsigned C = 0; C < tableSpec(T).NumColumns; ++C) {
        OS << ' ';
        dumpCell(OS, M, TableId(T), R, C);
      }
      OS << '\n';
    }
  }
}

void dumpMethodHeaders(raw_ostream &OS, const pe::Image &Img, const Module &M, Error &First) {
  if (!M.rowCount(TableId::MethodDef))
    return;
  OS << "Method bodies\n";
  for (uint32_t R = 1; R <= M.rowCount(TableId::MethodDef); ++R) {
    uint32_t RVA = M.get(TableId::MethodDef, R, MethodDefCol::RVA);
    if (!RVA)
      continue;
    OS << "  " << format_hex(makeToken(TableId::MethodDef, R), 10) << " RVA "
       << format_hex(RVA, 10);
    if (M.get(TableId::MethodDef, R, MethodDefCol::ImplFlags) & 3) {
      OS << " native code\n";
      continue;
    }
    uint64_t Off = 0;
    ArrayRef<uint8_t> Tail = Img.rvaTail(RVA, &Off);
    if (Tail.empty()) {
      OS << " <not inside a section>\n";
      continue;
    }
    Expected<il::RawMethodBody> B = il::readMethodBody(Tail, Off);
    if (!B) {
      OS << " error: " << toString(B.takeError()) << '\n';
      if (!First)
        First = plainError("a method body is malformed");
      continue;
    }
    OS << " @" << format_hex(Off, 10) << (B->Fat ? " fat" : " tiny") << " flags "
       << format_hex(B->Flags, 6) << " maxstack " << B->MaxStack << " code " << B->Code.size()
       << " locals " << format_hex(B->LocalVarSigToken, 10) << " clauses " << B->Clauses.size()
       << (B->FatSections ? " (fat)" : "") << " total " << B->TotalSize << '\n';
  }
}

} // namespace

Error rawDump(raw_ostream &OS, ArrayRef<uint8_t> Bytes) {
  OS << "File size " << format_hex(Bytes.size(), 10) << '\n';
  if (looksLikePortablePdb(Bytes)) {
    OS << "Portable PDB\n";
    Expected<std::unique_ptr<Module>> M = Module::createUnvalidated(Bytes, 0);
    if (!M) {
      std::string Msg = toString(M.takeError());
      OS << "error: " << Msg << '\n';
      return plainError(Msg);
    }
    dumpMetadata(OS, **M);
    if (Error V = (*M)->validate()) {
      std::string Msg = toString(std::move(V));
      OS << "error: " << Msg << '\n';
      return plainError(Msg);
    }
    return Error::success();
  }
  Expected<std::unique_ptr<pe::Image>> Img = pe::Image::create(Bytes, "<input>");
  if (!Img) {
    // Show the first headers by hand as far as they go.
    ByteReader R(Bytes);
    uint16_t Magic = R.u16();
    R.seek(0x3C);
    uint32_t Lfanew = R.u32();
    if (R.ok())
      OS << "DOS header\n  e_magic " << format_hex(Magic, 6) << "\n  e_lfanew "
         << format_hex(Lfanew, 10) << '\n';
    Error E = Img.takeError();
    std::string Msg = toString(std::move(E));
    OS << "error: " << Msg << '\n';
    return plainError(Msg);
  }
  const pe::Image &I = **Img;
  dumpHeaders(OS, I);
  if (!I.cli()) {
    OS << "No CLI header: not a managed image.\n";
    return Error::success();
  }
  dumpCli(OS, *I.cli());
  Error First = dumpDebugAndR2R(OS, I);
  Expected<std::unique_ptr<Module>> M = Module::createUnvalidated(I.metadata(), I.metadataOffset());
  if (!M) {
    std::string Msg = toString(M.takeError());
    OS << "error: " << Msg << '\n';
    consumeError(std::move(First));
    return plainError(Msg);
  }
  dumpMetadata(OS, **M);
  if (Error V = (*M)->validate()) {
    std::string Msg = toString(std::move(V));
    OS << "error: " << Msg << '\n';
    if (!First)
      First = plainError(Msg);
    return First; // cell values cannot be trusted for walking bodies
  }
  dumpMethodHeaders(OS, I, **M, First);
  return First;
}

} // namespace weft::text
