//===- pe/Image.cpp - PE/COFF reader --------------------------------------===//
#include "pe/Image.h"

#include "support/ByteReader.h"
#include "support/Error.h"
#include "support/Format.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

using namespace llvm;

namespace weft::pe {

namespace {
constexpr uint16_t DosMagic = 0x5A4D;        // "MZ"
constexpr uint32_t PESignature = 0x00004550; // "PE\0\0"
constexpr uint16_t PE32Magic = 0x10B;
constexpr uint16_t PE32PlusMagic = 0x20B;
constexpr size_t CoffHeaderSize = 20;
constexpr size_t SectionHeaderSize = 40;
constexpr size_t CliHeaderSize = 72;
constexpr size_t DebugEntrySize = 28;
constexpr uint32_t CodeViewRSDS = 0x53445352;     // "RSDS"
constexpr uint32_t EmbeddedPdbMagic = 0x4244504D; // "MPDB"
// The loader refuses more sections than this; so do we, before reading any of them.
constexpr unsigned MaxSections = 96;
constexpr unsigned MaxDebugEntries = 64;
constexpr unsigned MaxReadyToRunSections = 256;
} // namespace

StringRef directoryName(unsigned Index) {
  static const char *const Names[DirCount] = {
      "export", "import",       "resource",       "exception", "certificate", "base relocation",
      "debug",  "architecture", "global pointer", "TLS",       "load config", "bound import",
      "IAT",    "delay import", "CLR runtime",    "reserved"};
  return Index < DirCount ? Names[Index] : "unknown";
}

StringRef machineName(uint16_t Machine) {
  switch (Machine) {
  case 0x0000: return "unknown";
  case 0x014C: return "I386";
  case 0x0200: return "IA64";
  case 0x8664: return "AMD64";
  case 0x01C0: return "ARM";
  case 0x01C4: return "ARMNT";
  case 0xAA64: return "ARM64";
  case 0x6264: return "LOONGARCH64";
  case 0x5064: return "RISCV64";
  // ReadyToRun images built for another OS xor the machine with an OS value.
  case 0x014C ^ 0x7B79: return "I386 (Linux R2R)";
  case 0x8664 ^ 0x7B79: return "AMD64 (Linux R2R)";
  case 0xAA64 ^ 0x7B79: return "ARM64 (Linux R2R)";
  case 0x01C4 ^ 0x7B79: return "ARMNT (Linux R2R)";
  case 0x8664 ^ 0x4644: return "AMD64 (macOS R2R)";
  case 0xAA64 ^ 0x4644: return "ARM64 (macOS R2R)";
  case 0x8664 ^ 0xADC4: return "AMD64 (FreeBSD R2R)";
  case 0xAA64 ^ 0xADC4: return "ARM64 (FreeBSD R2R)";
  default: return "other";
  }
}

StringRef subsystemName(uint16_t Subsystem) {
  switch (Subsystem) {
  case 1: return "NATIVE";
  case 2: return "WINDOWS_GUI";
  case 3: return "WINDOWS_CUI";
  case 5: return "OS2_CUI";
  case 7: return "POSIX_CUI";
  case 9: return "WINDOWS_CE_GUI";
  case 10: return "EFI_APPLICATION";
  case 14: return "XBOX";
  default: return "";
  }
}

StringRef debugTypeName(uint32_t Type) {
  switch (Type) {
  case 0: return "unknown";
  case 1: return "COFF";
  case DebugCodeView: return "CodeView";
  case 3: return "FPO";
  case 4: return "misc";
  case 5: return "exception";
  case 6: return "fixup";
  case 9: return "Borland";
  case 13: return "POGO";
  case 14: return "ILTCG";
  case DebugReproducible: return "Reproducible";
  case DebugEmbeddedPortablePdb: return "EmbeddedPortablePdb";
  case DebugPdbChecksum: return "PdbChecksum";
  case 20: return "ExtendedDllCharacteristics";
  case 21: return "PerfMap";
  default: return "other";
  }
}

std::string readyToRunFlagNames(uint32_t Flags) {
  static const char *const Names[] = {
      "platform-neutral-source",    "skip-type-validation", "partial",
      "nonshared-pinvoke-stubs",    "embedded-msil",        "component",
      "multimodule-version-bubble", "unrelated-r2r-code"};
  std::string Out;
  for (unsigned Bit = 0; Bit < 32; ++Bit) {
    if (!(Flags & (1u << Bit)))
      continue;
    if (!Out.empty())
      Out += ", ";
    Out += Bit < std::size(Names) ? std::string(Names[Bit]) : "bit" + std::to_string(Bit);
  }
  return Out;
}

bool looksLikePE(ArrayRef<uint8_t> Bytes) {
  ByteReader R(Bytes);
  if (R.u16() != DosMagic)
    return false;
  R.seek(0x3C);
  uint32_t Lfanew = R.u32();
  if (!R.ok())
    return false;
  R.seek(Lfanew);
  return R.u32() == PESignature && R.ok();
}

Expected<std::unique_ptr<Image>> Image::open(StringRef Path) {
  // Not volatile: large files are mapped, not read.
  auto BufOrErr = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                        /*RequiresNullTerminator=*/false);
  if (!BufOrErr)
    return errorCodeToError(BufOrErr.getError());
  return create(std::move(*BufOrErr));
}

Expected<std::unique_ptr<Image>> Image::create(std::unique_ptr<MemoryBuffer> Buffer) {
  std::unique_ptr<Image> I(new Image());
  I->Name = Buffer->getBufferIdentifier().str();
  I->Bytes = arrayRefFromStringRef(Buffer->getBuffer());
  I->Owned = std::move(Buffer);
  if (Error E = I->parse())
    return std::move(E);
  return std::move(I);
}

Expected<std::unique_ptr<Image>> Image::create(ArrayRef<uint8_t> Bytes, StringRef Name) {
  std::unique_ptr<Image> I(new Image());
  I->Name = Name.str();
  I->Bytes = Bytes;
  if (Error E = I->parse())
    return std::move(E);
  return std::move(I);
}

namespace {
/// How far a loaded image extends, from its headers (within the first \p Limit bytes).
Expected<size_t> loadedExtent(const uint8_t *Base, Image::Layout L, size_t Limit) {
  ByteReader R(ArrayRef<uint8_t>(Base, Limit));
  if (R.u16() != DosMagic)
    return formatError("DOS header", 0, "missing 'MZ' signature");
  R.seek(0x3C);
  uint32_t PEOffset = R.u32();
  if (!R.ok() || PEOffset > Limit - 4 - CoffHeaderSize)
    return formatError("DOS header", 0x3C,
                       "e_lfanew " + Twine(hex(PEOffset, 8)) + " is not within the headers");
  R.seek(PEOffset);
  if (R.u32() != PESignature)
    return formatError("PE signature", PEOffset, "missing 'PE\\0\\0' signature");
  R.seek(PEOffset + 6);
  uint16_t Sections = R.u16();
  R.seek(PEOffset + 20);
  uint16_t OptSize = R.u16();
  size_t Opt = PEOffset + 4 + CoffHeaderSize;
  if (L == Image::Layout::Mapped) {
    R.seek(Opt + 56); // SizeOfImage, at the same place in PE32 and PE32+
    uint32_t SizeOfImage = R.u32();
    if (!R.ok() || SizeOfImage < Limit)
      return formatError("optional header", Opt + 56,
                         "SizeOfImage " + Twine(hex(SizeOfImage, 8)) + " is smaller than the headers");
    return SizeOfImage;
  }
  size_t End = Limit;
  R.seek(Opt + OptSize);
  for (unsigned I = 0; I < Sections && I < MaxSections; ++I) {
    size_t At = R.pos();
    R.skip(16);
    uint32_t RawSize = R.u32(), RawPointer = R.u32();
    R.seek(At + SectionHeaderSize);
    End = std::max<size_t>(End, size_t(RawPointer) + RawSize);
  }
  if (!R.ok())
    return formatError("section table", Opt + OptSize, "is not within the headers");
  return End;
}
} // namespace

Expected<std::unique_ptr<Image>> Image::createLoaded(const uint8_t *Base, Layout L, StringRef Name,
                                                     size_t HeaderLimit) {
  Expected<size_t> Extent = loadedExtent(Base, L, HeaderLimit);
  if (!Extent)
    return Extent.takeError();
  std::unique_ptr<Image> I(new Image());
  I->Name = Name.str();
  I->Bytes = ArrayRef<uint8_t>(Base, *Extent);
  I->Laid = L;
  I->Loaded = true;
  if (Error E = I->parse())
    return std::move(E);
  return std::move(I);
}

Error Image::parse() {
  ByteReader R(Bytes);
  if (Bytes.size() < 0x40)
    return formatError("DOS header", 0,
                       "file is too small to be a PE image (" + Twine(Bytes.size()) + " bytes)");
  if (R.u16() != DosMagic)
    return formatError("DOS header", 0, "missing 'MZ' signature");
  R.seek(0x3C);
  PEOffset = R.u32();
  if (PEOffset > Bytes.size() || Bytes.size() - PEOffset < 4 + CoffHeaderSize)
    return formatError("DOS header", 0x3C,
                       "e_lfanew " + Twine(hex(PEOffset, 8)) + " points outside the file");
  R.seek(PEOffset);
  if (R.u32() != PESignature)
    return formatError("PE signature", PEOffset, "missing 'PE\\0\\0' signature");

  Coff.Machine = R.u16();
  Coff.NumberOfSections = R.u16();
  Coff.TimeDateStamp = R.u32();
  Coff.PointerToSymbolTable = R.u32();
  Coff.NumberOfSymbols = R.u32();
  Coff.SizeOfOptionalHeader = R.u16();
  Coff.Characteristics = R.u16();
  if (Coff.NumberOfSections > MaxSections)
    return formatError("COFF header", PEOffset + 6,
                       Twine(Coff.NumberOfSections) + " sections (at most " + Twine(MaxSections) +
                           " are allowed)");

  size_t OptStart = R.pos();
  if (Coff.SizeOfOptionalHeader > R.remaining())
    return formatError("optional header", OptStart, "extends beyond the end of the file");
  ByteReader O(Bytes.slice(OptStart, Coff.SizeOfOptionalHeader), OptStart);
  uint16_t Magic = O.u16();
  if (!O.ok())
    return formatError("optional header", OptStart, "missing (SizeOfOptionalHeader is 0)");
  if (Magic != PE32Magic && Magic != PE32PlusMagic)
    return formatError("optional header", OptStart,
                       "unknown magic " + Twine(hex(Magic, 4)) +
                           " (expected 0x10B for PE32 or 0x20B for PE32+)");
  Opt.PE32Plus = Magic == PE32PlusMagic;
  Opt.MajorLinkerVersion = O.u8();
  Opt.MinorLinkerVersion = O.u8();
  Opt.SizeOfCode = O.u32();
  Opt.SizeOfInitializedData = O.u32();
  Opt.SizeOfUninitializedData = O.u32();
  Opt.AddressOfEntryPoint = O.u32();
  Opt.BaseOfCode = O.u32();
  if (!Opt.PE32Plus)
    Opt.BaseOfData = O.u32();
  Opt.ImageBase = Opt.PE32Plus ? O.u64() : O.u32();
  Opt.SectionAlignment = O.u32();
  Opt.FileAlignment = O.u32();
  Opt.MajorOSVersion = O.u16();
  Opt.MinorOSVersion = O.u16();
  Opt.MajorImageVersion = O.u16();
  Opt.MinorImageVersion = O.u16();
  Opt.MajorSubsystemVersion = O.u16();
  Opt.MinorSubsystemVersion = O.u16();
  Opt.Win32VersionValue = O.u32();
  Opt.SizeOfImage = O.u32();
  Opt.SizeOfHeaders = O.u32();
  Opt.CheckSum = O.u32();
  Opt.Subsystem = O.u16();
  Opt.DllCharacteristics = O.u16();
  auto Wide = [&] { return Opt.PE32Plus ? O.u64() : uint64_t(O.u32()); };
  Opt.SizeOfStackReserve = Wide();
  Opt.SizeOfStackCommit = Wide();
  Opt.SizeOfHeapReserve = Wide();
  Opt.SizeOfHeapCommit = Wide();
  Opt.LoaderFlags = O.u32();
  Opt.NumberOfRvaAndSizes = O.u32();
  if (Error E = O.takeError(Opt.PE32Plus ? "PE32+ optional header" : "PE32 optional header"))
    return E;
  // Extra directories beyond the sixteen defined ones are ignored; missing ones are empty.
  unsigned NumDirs = std::min<uint32_t>(Opt.NumberOfRvaAndSizes, DirCount);
  if (NumDirs * 8 > O.remaining())
    return formatError("optional header", O.fileOffset(),
                       "NumberOfRvaAndSizes is " + Twine(Opt.NumberOfRvaAndSizes) +
                           " but SizeOfOptionalHeader leaves room for " + Twine(O.remaining() / 8));
  for (unsigned I = 0; I < NumDirs; ++I) {
    Opt.Directories[I].RVA = O.u32();
    Opt.Directories[I].Size = O.u32();
  }

  size_t SectionTable = OptStart + Coff.SizeOfOptionalHeader;
  if (size_t(Coff.NumberOfSections) * SectionHeaderSize > Bytes.size() - SectionTable)
    return formatError("section table", SectionTable,
                       Twine(Coff.NumberOfSections) +
                           " section headers extend beyond the end of the file");
  ByteReader S(Bytes, 0);
  S.seek(SectionTable);
  Sections.reserve(Coff.NumberOfSections);
  for (unsigned I = 0; I < Coff.NumberOfSections; ++I) {
    Section Sec;
    Sec.HeaderOffset = S.pos();
    StringRef RawName = S.chars(8);
    Sec.Name = RawName.take_until([](char C) { return C == 0; }).str();
    Sec.VirtualSize = S.u32();
    Sec.VirtualAddress = S.u32();
    Sec.SizeOfRawData = S.u32();
    Sec.PointerToRawData = S.u32();
    Sec.PointerToRelocations = S.u32();
    Sec.PointerToLinenumbers = S.u32();
    Sec.NumberOfRelocations = S.u16();
    Sec.NumberOfLinenumbers = S.u16();
    Sec.Characteristics = S.u32();
    if (Laid == Layout::Mapped) { // the loader put the data at the RVA, zeros after it
      Sec.PointerToRawData = Sec.VirtualAddress;
      Sec.SizeOfRawData = std::max(Sec.VirtualSize, Sec.SizeOfRawData);
    }
    if (Sec.SizeOfRawData && (Sec.PointerToRawData > Bytes.size() ||
                              Sec.SizeOfRawData > Bytes.size() - Sec.PointerToRawData))
      return formatError(
          "section header '" + Sec.Name + "'", Sec.HeaderOffset,
          "raw data [" + hex(Sec.PointerToRawData, 8) + ", +" + hex(Sec.SizeOfRawData, 8) +
              ") extends beyond the end of the file (file size " + hex(Bytes.size(), 8) + ")");
    Sections.push_back(std::move(Sec));
  }
  if (Error E = S.takeError("section table"))
    return E;
  // The certificate table is the one directory given as a file offset; it must be in the file
  // (a loader leaves it out of a loaded image's extent).
  DataDirectory Cert = directory(DirSecurity);
  if (!Loaded && Cert.Size && (Cert.RVA > Bytes.size() || Cert.Size > Bytes.size() - Cert.RVA))
    return formatError("certificate table", Cert.RVA,
                       "[" + hex(Cert.RVA) + ", +" + hex(Cert.Size) +
                           ") extends beyond the end of the file (file size " + hex(Bytes.size()) +
                           ")");
  return parseCli();
}

const Section *Image::sectionForRVA(uint32_t RVA) const {
  for (const Section &S : Sections) {
    uint32_t Span = S.VirtualSize ? S.VirtualSize : S.SizeOfRawData;
    if (RVA >= S.VirtualAddress && RVA - S.VirtualAddress < Span)
      return &S;
  }
  return nullptr;
}

Expected<uint64_t> Image::rvaToOffset(uint32_t RVA, uint32_t Size, StringRef What,
                                      uint64_t NamedAt) const {
  auto Fail = [&](const Twine &Why) {
    if (NamedAt != UnknownOffset)
      return formatError(What + " directory", NamedAt,
                         "RVA " + hex(RVA, 8) + " (size " + hex(Size, 1) + ") " + Why);
    return formatError(What, RVA, "RVA " + hex(RVA, 8) + " (size " + hex(Size, 1) + ") " + Why);
  };
  if (const Section *S = sectionForRVA(RVA)) {
    uint64_t Delta = RVA - S->VirtualAddress;
    uint64_t Backed =
        std::min<uint64_t>(S->SizeOfRawData, S->VirtualSize ? S->VirtualSize : S->SizeOfRawData);
    if (Delta + Size > Backed)
      return Fail("runs past the file data of section '" + S->Name + "'");
    return S->PointerToRawData + Delta;
  }
  // The headers are mapped at RVA 0 as they are in the file.
  if (uint64_t(RVA) + Size <= Opt.SizeOfHeaders && uint64_t(RVA) + Size <= Bytes.size())
    return RVA;
  return Fail("is not inside any section");
}

Expected<ArrayRef<uint8_t>> Image::rvaBytes(uint32_t RVA, uint32_t Size, StringRef What,
                                            uint64_t NamedAt) const {
  Expected<uint64_t> Off = rvaToOffset(RVA, Size, What, NamedAt);
  if (!Off)
    return Off.takeError();
  return Bytes.slice(*Off, Size);
}

Expected<Image::MappedRange> Image::mappedRange(uint32_t RVA, uint32_t Size, StringRef What) const {
  const Section *S = sectionForRVA(RVA);
  if (!S) { // the headers, or nothing
    Expected<ArrayRef<uint8_t>> B = rvaBytes(RVA, Size, What);
    if (!B)
      return B.takeError();
    return MappedRange{*B, 0};
  }
  uint64_t Delta = RVA - S->VirtualAddress;
  uint64_t Span = std::max(S->VirtualSize, S->SizeOfRawData);
  if (Delta + Size > Span)
    return formatError(What, RVA,
                       "RVA " + hex(RVA, 8) + " (size " + Twine(Size) +
                           ") runs past the end of section '" + S->Name + "'");
  uint64_t Backed =
      std::min<uint64_t>(S->SizeOfRawData, S->VirtualSize ? S->VirtualSize : S->SizeOfRawData);
  uint64_t N = Delta < Backed ? std::min<uint64_t>(Size, Backed - Delta) : 0;
  return MappedRange{Bytes.slice(S->PointerToRawData + Delta, N), uint32_t(Size - N)};
}

Expected<std::vector<uint8_t>> Image::readMapped(uint32_t RVA, uint32_t Size,
                                                 StringRef What) const {
  Expected<MappedRange> R = mappedRange(RVA, Size, What);
  if (!R)
    return R.takeError();
  if (R->Zeros > MaxMappedZeros)
    return formatError(What, RVA,
                       "RVA " + hex(RVA, 8) + " (size " + Twine(Size) + ") would take " +
                           Twine(R->Zeros) + " bytes of zeros past its section's file data, " +
                           "more than the " + Twine(MaxMappedZeros) + " weft makes");
  std::vector<uint8_t> Out(R->Backed.begin(), R->Backed.end());
  Out.resize(Size, 0);
  return Out;
}

ArrayRef<uint8_t> Image::rvaTail(uint32_t RVA, uint64_t *FileOffset) const {
  const Section *S = sectionForRVA(RVA);
  if (!S)
    return {};
  uint64_t Delta = RVA - S->VirtualAddress;
  uint64_t Backed =
      std::min<uint64_t>(S->SizeOfRawData, S->VirtualSize ? S->VirtualSize : S->SizeOfRawData);
  if (Delta >= Backed)
    return {};
  if (FileOffset)
    *FileOffset = S->PointerToRawData + Delta;
  return Bytes.slice(S->PointerToRawData + Delta, Backed - Delta);
}

Error Image::parseCli() {
  DataDirectory Dir = directory(DirCLR);
  if (Dir.RVA == 0)
    return Error::success(); // a native image; callers decide whether that is an error
  if (Dir.Size < CliHeaderSize)
    return formatError("CLI header directory", PEOffset,
                       "size " + Twine(Dir.Size) + " is smaller than the " + Twine(CliHeaderSize) +
                           "-byte CLI header");
  Expected<uint64_t> Off = rvaToOffset(Dir.RVA, CliHeaderSize, "CLI header");
  if (!Off)
    return Off.takeError();
  ByteReader R(Bytes.slice(*Off, CliHeaderSize), *Off);
  CliHeader H;
  H.FileOffset = *Off;
  H.Cb = R.u32();
  H.MajorRuntimeVersion = R.u16();
  H.MinorRuntimeVersion = R.u16();
  auto Dir8 = [&] {
    DataDirectory D;
    D.RVA = R.u32();
    D.Size = R.u32();
    return D;
  };
  H.Metadata = Dir8();
  H.Flags = R.u32();
  H.EntryPoint = R.u32();
  H.Resources = Dir8();
  H.StrongNameSignature = Dir8();
  H.CodeManagerTable = Dir8();
  H.VTableFixups = Dir8();
  H.ExportAddressTableJumps = Dir8();
  H.ManagedNativeHeader = Dir8();
  if (Error E = R.takeError("CLI header"))
    return E;
  if (H.Metadata.RVA == 0 || H.Metadata.Size == 0)
    return formatError("CLI header", *Off + 8, "has no metadata directory");
  Expected<uint64_t> MDOff = rvaToOffset(H.Metadata.RVA, H.Metadata.Size, "metadata", *Off + 8);
  if (!MDOff)
    return MDOff.takeError();
  MetadataOffset = *MDOff;
  Metadata = Bytes.slice(*MDOff, H.Metadata.Size);
  Cli = H;
  return Error::success();
}

bool Image::isReadyToRun() const {
  if (!Cli || Cli->ManagedNativeHeader.RVA == 0 || Cli->ManagedNativeHeader.Size < 4)
    return false;
  ArrayRef<uint8_t> Tail = rvaTail(Cli->ManagedNativeHeader.RVA);
  ByteReader R(Tail);
  return R.u32() == ReadyToRunHeader::Signature && R.ok();
}

Expected<ReadyToRunHeader> Image::readyToRunHeader() const {
  if (!Cli || Cli->ManagedNativeHeader.RVA == 0)
    return plainError("the image has no managed-native header");
  uint64_t Off = 0;
  ArrayRef<uint8_t> Tail = rvaTail(Cli->ManagedNativeHeader.RVA, &Off);
  if (Tail.empty())
    return formatError("managed-native header", Cli->FileOffset + 64,
                       "RVA " + hex(Cli->ManagedNativeHeader.RVA, 8) +
                           " is not inside any section");
  ByteReader R(Tail, Off);
  ReadyToRunHeader H;
  if (R.u32() != ReadyToRunHeader::Signature)
    return formatError("ReadyToRun header", Off, "missing 'RTR' signature");
  H.MajorVersion = R.u16();
  H.MinorVersion = R.u16();
  H.Flags = R.u32();
  uint32_t Count = R.u32();
  if (Count > MaxReadyToRunSections || Count * 12ull > R.remaining())
    return formatError("ReadyToRun header", Off + 12,
                       Twine(Count) + " sections do not fit in the section's data");
  H.Sections.reserve(Count);
  for (uint32_t I = 0; I < Count; ++I) {
    ReadyToRunHeader::SectionEntry E;
    E.Type = R.u32();
    E.Where.RVA = R.u32();
    E.Where.Size = R.u32();
    H.Sections.push_back(E);
  }
  if (Error E = R.takeError("ReadyToRun header"))
    return std::move(E);
  return H;
}

Expected<std::vector<DebugEntry>> Image::debugEntries() const {
  std::vector<DebugEntry> Entries;
  DataDirectory Dir = directory(DirDebug);
  if (Dir.RVA == 0 || Dir.Size == 0)
    return Entries;
  Expected<ArrayRef<uint8_t>> Table = rvaBytes(Dir.RVA, Dir.Size, "debug directory");
  if (!Table)
    return Table.takeError();
  uint64_t TableOff = Table->data() - Bytes.data();
  if (Dir.Size % DebugEntrySize)
    return formatError("debug directory", TableOff,
                       "size " + Twine(Dir.Size) + " is not a multiple of " +
                           Twine(DebugEntrySize));
  unsigned Count = Dir.Size / DebugEntrySize;
  if (Count > MaxDebugEntries)
    return formatError("debug directory", TableOff,
                       Twine(Count) + " entries (at most " + Twine(MaxDebugEntries) + ")");
  ByteReader R(*Table, TableOff);
  for (unsigned I = 0; I < Count; ++I) {
    DebugEntry E;
    E.EntryOffset = R.fileOffset();
    E.Characteristics = R.u32();
    E.TimeDateStamp = R.u32();
    E.MajorVersion = R.u16();
    E.MinorVersion = R.u16();
    E.Type = R.u32();
    E.SizeOfData = R.u32();
    E.AddressOfRawData = R.u32();
    E.PointerToRawData = R.u32();
    std::string What =
        ("debug directory entry " + Twine(I) + " (" + debugTypeName(E.Type) + ")").str();
    if (E.SizeOfData) {
      if (E.PointerToRawData) {
        if (E.PointerToRawData > Bytes.size() || E.SizeOfData > Bytes.size() - E.PointerToRawData)
          return formatError(What, E.EntryOffset,
                             "data at file offset " + hex(E.PointerToRawData, 8) + " (size " +
                                 Twine(E.SizeOfData) + ") is outside the file");
        E.Data = Bytes.slice(E.PointerToRawData, E.SizeOfData);
      } else if (E.AddressOfRawData) {
        Expected<ArrayRef<uint8_t>> D = rvaBytes(E.AddressOfRawData, E.SizeOfData, What);
        if (!D)
          return D.takeError();
        E.Data = *D;
      }
    }
    uint64_t DataOff = E.Data.empty() ? E.EntryOffset : E.Data.data() - Bytes.data();
    ByteReader D(E.Data, DataOff);
    switch (E.Type) {
    case DebugCodeView:
      if (E.Data.size() >= 4 && D.u32() == CodeViewRSDS) {
        DebugEntry::CodeView CV;
        ArrayRef<uint8_t> G = D.bytes(16);
        if (G.size() == 16)
          std::copy(G.begin(), G.end(), CV.Guid.begin());
        CV.Age = D.u32();
        CV.Path = D.cstring().str();
        if (Error Err = D.takeError(What))
          return std::move(Err);
        E.CV = std::move(CV);
      }
      break;
    case DebugEmbeddedPortablePdb: {
      if (D.u32() != EmbeddedPdbMagic)
        return formatError(What, DataOff, "missing 'MPDB' signature");
      DebugEntry::EmbeddedPdb P;
      P.UncompressedSize = D.u32();
      P.Compressed = D.bytes(D.remaining());
      if (Error Err = D.takeError(What))
        return std::move(Err);
      E.Embedded = P;
      break;
    }
    case DebugPdbChecksum: {
      DebugEntry::PdbChecksum C;
      C.Algorithm = D.cstring().str();
      C.Checksum = D.bytes(D.remaining());
      if (Error Err = D.takeError(What))
        return std::move(Err);
      E.Checksum = std::move(C);
      break;
    }
    default: break;
    }
    Entries.push_back(std::move(E));
  }
  return Entries;
}

} // namespace weft::pe
