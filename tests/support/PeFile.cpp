//===- tests/support/PeFile.cpp - Edits of a PE file for made inputs ------===//
#include "tests/support/PeFile.h"

#include "metadata/Module.h"
#include "pe/Image.h"
#include "support/Error.h"
#include "support/Format.h"

#include "llvm/Support/Endian.h"

#include <algorithm>

using namespace llvm;

namespace weft::test {

namespace {
constexpr uint32_t SectionHeaderSize = 40;
constexpr uint32_t ScnInitializedData = 0x40;
constexpr uint32_t ScnCode = 0x20;
constexpr uint32_t DebugEntrySize = 28;
constexpr unsigned DirSecurity = 4, DirDebug = 6, DirCLR = 14;

uint32_t alignUp(uint64_t V, uint32_t A) { return uint32_t((V + A - 1) / A * A); }
} // namespace

SourceAssembly::SourceAssembly() = default;
SourceAssembly::SourceAssembly(SourceAssembly &&) = default;
SourceAssembly::~SourceAssembly() = default;

ArrayRef<uint8_t> SourceAssembly::bytes() const {
  return arrayRefFromStringRef(Buffer->getBuffer());
}

Expected<SourceAssembly> readSourceAssembly(StringRef Path) {
  SourceAssembly A;
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(Path, false, false);
  if (!Buffer)
    return createFileError(Path, Buffer.getError());
  A.Buffer = std::move(*Buffer);
  Expected<std::unique_ptr<pe::Image>> Img = pe::Image::create(A.bytes(), Path);
  if (!Img)
    return createFileError(Path, Img.takeError());
  A.Image = std::move(*Img);
  if (!A.Image->cli())
    return createFileError(Path, plainError("not a .NET assembly"));
  uint32_t Flags = A.Image->cli()->Flags;
  if (!(Flags & pe::CliILOnly) || A.Image->isReadyToRun())
    return createFileError(Path, plainError("the generator takes IL-only images only"));
  if (Flags & (pe::CliStrongNameSigned | pe::CliNativeEntryPoint))
    return createFileError(
        Path, plainError("the generator does not re-sign images or move native entry points"));
  Expected<std::unique_ptr<metadata::Module>> M =
      metadata::Module::create(A.Image->metadata(), A.Image->metadataOffset());
  if (!M)
    return createFileError(Path, M.takeError());
  A.Module = std::move(*M);
  return std::move(A);
}

Expected<PeFile> PeFile::parse(std::vector<uint8_t> Bytes) {
  PeFile F(std::move(Bytes));
  if (F.Bytes.size() < 0x40 || F.Bytes[0] != 'M' || F.Bytes[1] != 'Z')
    return formatError("DOS header", 0, "missing 'MZ' signature");
  F.PEOffset = F.read32(0x3C);
  if (uint64_t(F.PEOffset) + 24 + 2 > F.Bytes.size() || F.read32(F.PEOffset) != 0x00004550)
    return formatError("PE signature", F.PEOffset, "missing 'PE\\0\\0'");
  uint16_t Magic = F.read16(F.optionalHeader());
  if (Magic != 0x10B && Magic != 0x20B)
    return formatError("optional header", F.optionalHeader(),
                       "magic " + hex(Magic) + " is unknown");
  F.PE32Plus = Magic == 0x20B;
  if (F.read16(F.PEOffset + 20) < F.directoryOffset(16) - F.optionalHeader())
    return formatError("COFF header", F.PEOffset + 20,
                       "the optional header is too small for the data directories");
  if (F.sectionHeader(F.sectionCount()) > F.Bytes.size())
    return formatError("section table", F.sectionHeader(0), "runs past the end of the file");
  return std::move(F);
}

uint16_t PeFile::read16(uint64_t Offset) const {
  return support::endian::read16le(Bytes.data() + Offset);
}
uint32_t PeFile::read32(uint64_t Offset) const {
  return support::endian::read32le(Bytes.data() + Offset);
}
void PeFile::write16(uint64_t Offset, uint16_t V) {
  support::endian::write16le(Bytes.data() + Offset, V);
}
void PeFile::write32(uint64_t Offset, uint32_t V) {
  support::endian::write32le(Bytes.data() + Offset, V);
}

uint64_t PeFile::directoryOffset(unsigned Index) const {
  return optionalHeader() + (PE32Plus ? 112 : 96) + 8 * uint64_t(Index);
}

void PeFile::setDirectory(unsigned Index, uint32_t RVA, uint32_t Size) {
  write32(directoryOffset(Index), RVA);
  write32(directoryOffset(Index) + 4, Size);
}

uint64_t PeFile::sectionHeader(unsigned I) const {
  return optionalHeader() + read16(PEOffset + 20) + uint64_t(I) * SectionHeaderSize;
}

Expected<uint64_t> PeFile::cliHeaderOffset() const { return offsetOf(directoryRVA(DirCLR)); }

Expected<uint64_t> PeFile::offsetOf(uint32_t RVA) const {
  for (unsigned I = 0; I < sectionCount(); ++I) {
    uint64_t H = sectionHeader(I);
    uint32_t VA = read32(H + 12), RawSize = read32(H + 16), RawPointer = read32(H + 20);
    if (RVA >= VA && RVA - VA < RawSize)
      return uint64_t(RawPointer) + (RVA - VA);
  }
  return plainError("RVA " + hex(RVA) + " is not in any section's file data");
}

uint32_t PeFile::nextSectionRVA() const {
  uint32_t SectionAlignment = read32(optionalHeader() + 32);
  uint32_t Next = 0;
  for (unsigned I = 0; I < sectionCount(); ++I) {
    uint64_t H = sectionHeader(I);
    uint32_t VirtualSize = read32(H + 8), VA = read32(H + 12), RawSize = read32(H + 16);
    Next = std::max(Next, alignUp(uint64_t(VA) + std::max(VirtualSize, RawSize), SectionAlignment));
  }
  return Next;
}

// Compilers make the headers just large enough for the sections they write. They grow by one
// file-alignment unit and all that follows moves down with its sections; the fields that hold
// file offsets rather than RVAs (section data, debug data, the certificate table) follow it.
Error PeFile::growHeaders() {
  uint64_t Opt = optionalHeader();
  uint32_t FileAlignment = read32(Opt + 36), Old = read32(Opt + 60);
  uint32_t FirstRVA = ~0u;
  for (unsigned I = 0; I < sectionCount(); ++I)
    FirstRVA = std::min(FirstRVA, read32(sectionHeader(I) + 12));
  if (uint64_t(Old) + FileAlignment > FirstRVA || Old > Bytes.size())
    return formatError("optional header", Opt + 60,
                       "the headers cannot grow without overlapping the first section");
  std::vector<uint64_t> DebugDataPointers;
  if (uint32_t RVA = directoryRVA(DirDebug)) {
    Expected<uint64_t> At = offsetOf(RVA);
    if (!At)
      return At.takeError();
    uint32_t Entries = read32(directoryOffset(DirDebug) + 4) / DebugEntrySize;
    for (uint32_t I = 0; I < Entries; ++I)
      DebugDataPointers.push_back(*At + FileAlignment + I * DebugEntrySize + 24);
  }
  Bytes.insert(Bytes.begin() + Old, FileAlignment, 0);
  write32(Opt + 60, Old + FileAlignment);
  auto Follow = [&](uint64_t FieldAt) {
    if (uint32_t V = read32(FieldAt); V >= Old)
      write32(FieldAt, V + FileAlignment);
  };
  for (unsigned I = 0; I < sectionCount(); ++I)
    Follow(sectionHeader(I) + 20);
  for (uint64_t P : DebugDataPointers)
    Follow(P);
  Follow(directoryOffset(DirSecurity));
  return Error::success();
}

Expected<uint32_t> PeFile::addSection(StringRef Name, ArrayRef<uint8_t> Data,
                                      uint32_t Characteristics) {
  uint64_t Opt = optionalHeader();
  uint32_t SectionAlignment = read32(Opt + 32), FileAlignment = read32(Opt + 36);
  // The new header goes after the last one: the headers must have room for it before the first
  // section's data.
  uint64_t NewHeader = sectionHeader(sectionCount());
  if (NewHeader + SectionHeaderSize > read32(Opt + 60)) // SizeOfHeaders
    if (Error E = growHeaders())
      return std::move(E);
  uint32_t NextRVA = nextSectionRVA();

  uint32_t RawPointer = alignUp(Bytes.size(), FileAlignment);
  uint32_t RawSize = alignUp(Data.size(), FileAlignment);
  std::fill_n(Bytes.begin() + NewHeader, SectionHeaderSize, 0);
  std::copy_n(Name.begin(), std::min<size_t>(Name.size(), 8), Bytes.begin() + NewHeader);
  write32(NewHeader + 8, uint32_t(Data.size()));
  write32(NewHeader + 12, NextRVA);
  write32(NewHeader + 16, RawSize);
  write32(NewHeader + 20, RawPointer);
  write32(NewHeader + 36, Characteristics);
  write16(PEOffset + 6, sectionCount() + 1);
  write32(Opt + 56, alignUp(uint64_t(NextRVA) + Data.size(), SectionAlignment)); // SizeOfImage
  if (Characteristics & ScnCode)
    write32(Opt + 4, read32(Opt + 4) + RawSize); // SizeOfCode
  if (Characteristics & ScnInitializedData)
    write32(Opt + 8, read32(Opt + 8) + RawSize); // SizeOfInitializedData

  Bytes.resize(RawPointer, 0);
  Bytes.insert(Bytes.end(), Data.begin(), Data.end());
  Bytes.resize(uint64_t(RawPointer) + RawSize, 0);
  return NextRVA;
}

} // namespace weft::test
