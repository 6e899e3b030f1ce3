//===- pe/Writer.cpp - Laying out a managed image anew --------------------===//
#include "pe/Writer.h"

#include "support/Allocator.h"
#include "support/ByteReader.h"
#include "support/Error.h"
#include "support/Format.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"

#include <algorithm>
#include <cstring>
#include <set>

using namespace llvm;

namespace weft::pe {

namespace {

constexpr uint16_t MachineI386 = 0x014C;
constexpr uint16_t MachineAMD64 = 0x8664;
constexpr uint16_t MachineARM64 = 0xAA64;
constexpr uint16_t MachineARMNT = 0x01C4;
constexpr uint16_t MachineIA64 = 0x0200;
constexpr uint32_t ReadyToRunPlatformNeutral = 0x1;
constexpr uint32_t CliHeaderSize = 72;
constexpr unsigned MaxResourceDepth = 8;

uint32_t alignTo(uint64_t V, uint32_t A) { return uint32_t((V + A - 1) / A * A); }

void put16(std::vector<uint8_t> &B, size_t At, uint16_t V) {
  support::endian::write16le(B.data() + At, V);
}
void put32(std::vector<uint8_t> &B, size_t At, uint32_t V) {
  support::endian::write32le(B.data() + At, V);
}
void put64(std::vector<uint8_t> &B, size_t At, uint64_t V) {
  support::endian::write64le(B.data() + At, V);
}
void append(std::vector<uint8_t> &B, ArrayRef<uint8_t> Data) {
  B.insert(B.end(), Data.begin(), Data.end());
}
void alignVector(std::vector<uint8_t> &B, size_t A) {
  while (B.size() % A)
    B.push_back(0);
}

bool is64Bit(uint16_t Machine) {
  return Machine == MachineAMD64 || Machine == MachineARM64 || Machine == MachineIA64;
}

// ReadyToRun images built for another OS xor the machine with an OS value; this undoes it.
uint16_t plainMachine(uint16_t M) {
  for (uint16_t OS :
       {uint16_t(0), uint16_t(0x7B79), uint16_t(0x4644), uint16_t(0xADC4), uint16_t(0x1993)})
    for (uint16_t Base : {MachineI386, MachineAMD64, MachineARM64, MachineARMNT})
      if (uint16_t(Base ^ OS) == M)
        return Base;
  return M;
}

// Rebases the data entries of a resource directory tree moved by \p Delta bytes of RVA.
Error rebaseResources(std::vector<uint8_t> &Sec, uint32_t DirOffset, uint32_t Offset, int64_t Delta,
                      uint32_t OldStart, uint32_t OldEnd, unsigned Depth,
                      std::set<uint32_t> &Seen) {
  auto Bad = [&](const Twine &Why) { return formatError("Win32 resource directory", Offset, Why); };
  if (Depth > MaxResourceDepth || !Seen.insert(Offset).second)
    return Bad("the directory tree loops or nests too deeply");
  uint64_t At = uint64_t(DirOffset) + Offset;
  if (At + 16 > Sec.size())
    return Bad("directory runs past the end of the section");
  uint32_t Count =
      support::endian::read16le(&Sec[At + 12]) + support::endian::read16le(&Sec[At + 14]);
  if (At + 16 + uint64_t(Count) * 8 > Sec.size())
    return Bad("directory entries run past the end of the section");
  for (uint32_t I = 0; I < Count; ++I) {
    uint32_t Target = support::endian::read32le(&Sec[At + 16 + I * 8 + 4]);
    if (Target & 0x80000000) {
      if (Error E = rebaseResources(Sec, DirOffset, Target & 0x7FFFFFFF, Delta, OldStart, OldEnd,
                                    Depth + 1, Seen))
        return E;
      continue;
    }
    uint64_t Entry = uint64_t(DirOffset) + Target;
    if (Entry + 16 > Sec.size())
      return Bad("data entry runs past the end of the section");
    uint32_t RVA = support::endian::read32le(&Sec[Entry]);
    uint32_t Size = support::endian::read32le(&Sec[Entry + 4]);
    if (RVA < OldStart || uint64_t(RVA) + Size > OldEnd)
      return Bad("resource data at RVA " + hex(RVA) + " lies outside the resource section");
    put32(Sec, Entry, uint32_t(int64_t(RVA) + Delta));
  }
  return Error::success();
}

} // namespace

uint32_t peChecksum(ArrayRef<uint8_t> File, uint64_t ChecksumOffset) {
  // The little-endian 16-bit words added with end-around carry, the checksum field as zero. The
  // carries are folded in once at the end: the sum is the same as folding after every word (for
  // any input that is not all zero both land in [1, 0xFFFF], where congruence modulo 0xFFFF
  // decides), and the loop has no dependency from one word to the next.
  auto Word = [&](uint64_t I) {
    return File[I] | (I + 1 < File.size() ? uint32_t(File[I + 1]) << 8 : 0);
  };
  uint64_t Sum = 0;
  size_t Even = File.size() & ~size_t(1);
  // Eight bytes at a time: the even words and the odd words of each, added in two 32-bit lanes,
  // which are folded into the sum before they can overflow (every 2^15 steps).
  constexpr uint64_t Words = 0x0000FFFF0000FFFF;
  size_t I = 0;
  while (Even - I >= 8) {
    uint64_t Lanes = 0;
    for (size_t Step = 0; Step < (1u << 15) && Even - I >= 8; ++Step, I += 8) {
      uint64_t X = support::endian::read64le(File.data() + I);
      Lanes += (X & Words) + ((X >> 16) & Words);
    }
    Sum += (Lanes & 0xFFFFFFFF) + (Lanes >> 32);
  }
  for (; I < Even; I += 2)
    Sum += File[I] | uint32_t(File[I + 1]) << 8;
  if (Even < File.size())
    Sum += Word(Even);
  if (ChecksumOffset % 2 == 0)
    for (uint64_t At : {ChecksumOffset, ChecksumOffset + 2})
      if (At < File.size())
        Sum -= Word(At);
  while (Sum >> 16)
    Sum = (Sum & 0xFFFF) + (Sum >> 16);
  return uint32_t(Sum + File.size());
}

Expected<std::unique_ptr<ImageBuilder>> ImageBuilder::create(const Image &Input,
                                                             const DebugDataOverrides &DebugData) {
  std::unique_ptr<ImageBuilder> B(new ImageBuilder(Input, DebugData));
  if (Error E = B->prepare())
    return std::move(E);
  return std::move(B);
}

Error ImageBuilder::prepare() {
  if (!In.cli())
    return plainError("not a .NET assembly: the PE image has no CLI header");
  const CliHeader &Cli = *In.cli();
  bool R2R = In.isReadyToRun();
  Report.WasReadyToRun = R2R;
  if (In.isMixedMode())
    return plainError("a mixed-mode (C++/CLI) image: its native code and the native entry points "
                      "into it cannot be carried into a rewritten image, and weft writes IL-only "
                      "images");
  if (Cli.Flags & CliNativeEntryPoint)
    return plainError("the entry point is native code, which weft does not carry over");
  if (!R2R) {
    static const std::pair<unsigned, const char *> Native[] = {
        {DirExport, "an export table"},     {DirException, "exception (unwind) data"},
        {DirTLS, "thread-local storage"},   {DirLoadConfig, "a load configuration"},
        {DirBoundImport, "bound imports"},  {DirDelayImport, "delay-load imports"},
        {DirGlobalPtr, "a global pointer"}, {DirArchitecture, "architecture data"}};
    for (auto &[Dir, What] : Native)
      if (!In.directory(Dir).empty())
        return plainError(Twine("the image has ") + What +
                          ", native data weft does not carry into a rewritten image");
  }
  if (!Cli.VTableFixups.empty() && Cli.VTableFixups.Size)
    return plainError("the image has vtable fixups (unmanaged exports), which weft does not carry "
                      "into a rewritten image");
  if (!Cli.ExportAddressTableJumps.empty() && Cli.ExportAddressTableJumps.Size)
    return plainError("the image has export address table jumps, which weft does not carry over");

  Machine = In.coff().Machine;
  PE32Plus = In.isPE32Plus();
  if (R2R) {
    Expected<ReadyToRunHeader> H = In.readyToRunHeader();
    if (!H)
      return H.takeError();
    if (H->Flags & ReadyToRunPlatformNeutral) {
      Machine = MachineI386; // the IL was AnyCPU
      PE32Plus = false;
    } else {
      Machine = plainMachine(Machine);
      PE32Plus = is64Bit(Machine);
    }
  }
  HasStub = !PE32Plus && Machine == MachineI386;
  FileAlignment = In.optional().FileAlignment;
  SectionAlignment = In.optional().SectionAlignment;
  if (R2R) { // crossgen's alignments suit native code; an IL-only image takes the usual ones
    FileAlignment = 0x200;
    SectionAlignment = 0x2000;
  }
  if (FileAlignment < 0x200 || (FileAlignment & (FileAlignment - 1)) || FileAlignment > 0x10000)
    FileAlignment = 0x200;
  if (SectionAlignment < FileAlignment || (SectionAlignment & (SectionAlignment - 1)))
    SectionAlignment = std::max<uint32_t>(0x2000, FileAlignment);
  Report.FileAlignment = FileAlignment;

  DataDirectory Res = In.directory(DirResource);
  if (!Res.empty() && Res.Size) {
    ResourceSection = In.sectionForRVA(Res.RVA);
    if (!ResourceSection)
      return formatError("resource directory", In.peHeaderOffset(),
                         "RVA " + hex(Res.RVA) + " is not inside any section");
  }
  unsigned Sections = 1 + (ResourceSection ? 1 : 0) + (HasStub ? 1 : 0);
  uint32_t DosSize = In.peHeaderOffset();
  HeadersSize = alignTo(DosSize + 4 + 20 + (PE32Plus ? 240 : 224) + 40 * Sections, FileAlignment);
  TextRVA = alignTo(HeadersSize, SectionAlignment);
  // The buffer holds the headers first, then .text, so that it becomes the file without a copy:
  // offsets into it are file offsets.
  // Reserved (not touched) to the input's size plus room for growth, so that the buffer is not
  // copied as it grows.
  Text.reserve(In.bytes().size() + (1u << 20));
  // Every page of the output is written; on a machine where a page fault is dear, 2 MiB pages
  // save most of them. Only over half the input's size, which nearly every output passes (a
  // ReadyToRun image loses its native code), so that a huge page is not left half used.
  adviseHugePages(Text.data(), In.bytes().size() / 2);
  Text.resize(HeadersSize);
  if (HasStub) {
    IatAt = uint32_t(Text.size());
    Text.resize(Text.size() + 8);
  }
  CliHeaderAt = uint32_t(Text.size());
  Text.resize(Text.size() + CliHeaderSize);
  return Error::success();
}

uint32_t ImageBuilder::addMethodBody(ArrayRef<uint8_t> Bytes, bool Fat) {
  assert(!DataStarted && "method bodies come before field data");
  if (Fat)
    alignVector(Text, 4);
  uint32_t RVA = TextRVA + uint32_t(Text.size() - HeadersSize);
  append(Text, Bytes);
  return RVA;
}

uint32_t ImageBuilder::addFieldData(ArrayRef<uint8_t> Bytes) {
  DataStarted = true;
  alignVector(Text, 8);
  uint32_t RVA = TextRVA + uint32_t(Text.size() - HeadersSize);
  append(Text, Bytes);
  return RVA;
}

Expected<std::vector<uint8_t>> ImageBuilder::finish(ArrayRef<uint8_t> Metadata, uint32_t SignWith) {
  return finish(
      [&](std::vector<uint8_t> &Section) {
        append(Section, Metadata);
        return Error::success();
      },
      SignWith);
}

Expected<std::vector<uint8_t>>
ImageBuilder::finish(function_ref<Error(std::vector<uint8_t> &)> WriteMetadata, uint32_t SignWith) {
  const CliHeader &Cli = *In.cli();
  const OptionalHeader &Opt = In.optional();
  auto RVA = [&](size_t FileOffset) { return TextRVA + uint32_t(FileOffset - HeadersSize); };

  // Metadata, managed resources, the strong-name slot.
  alignVector(Text, 4);
  uint32_t MetadataAt = uint32_t(Text.size());
  if (Error E = WriteMetadata(Text))
    return std::move(E);
  uint32_t MetadataSize = uint32_t(Text.size() - MetadataAt);
  uint32_t ResourcesAt = 0, ResourcesSize = 0;
  if (!Cli.Resources.empty() && Cli.Resources.Size) {
    Expected<ArrayRef<uint8_t>> R = In.rvaBytes(Cli.Resources.RVA, Cli.Resources.Size,
                                                "managed resources", Cli.FileOffset + 24);
    if (!R)
      return R.takeError();
    alignVector(Text, 8);
    ResourcesAt = uint32_t(Text.size());
    ResourcesSize = Cli.Resources.Size;
    append(Text, *R);
  }
  // An unsigned image keeps the input's (empty) slot, so that a later signer finds one.
  uint32_t SignatureAt = 0;
  uint32_t SignatureSize = SignWith ? SignWith : Cli.StrongNameSignature.Size;
  if (!SignWith && SignatureSize) {
    Expected<uint64_t> Slot = In.rvaToOffset(Cli.StrongNameSignature.RVA, SignatureSize,
                                             "strong-name signature", Cli.FileOffset + 32);
    if (!Slot)
      return Slot.takeError();
  }
  if (SignatureSize) {
    alignVector(Text, 8);
    SignatureAt = uint32_t(Text.size());
    Text.resize(Text.size() + SignatureSize, 0);
  }
  Report.StrongNameRemoved = (Cli.Flags & CliStrongNameSigned) && !SignWith;

  // The debug directory and its data; a ReadyToRun image's perf map entry describes native code
  // that is gone.
  Expected<std::vector<DebugEntry>> Debug = In.debugEntries();
  if (!Debug)
    return Debug.takeError();
  for (DebugEntry &E : *Debug)
    if (auto It = DebugData.find(E.Type); It != DebugData.end())
      E.Data = It->second;
  std::vector<const DebugEntry *> Kept;
  for (const DebugEntry &E : *Debug) {
    if (Report.WasReadyToRun && E.Type == 21) {
      Report.PerfMapRemoved = true;
      continue;
    }
    Kept.push_back(&E);
  }
  uint32_t DebugAt = 0;
  std::vector<uint32_t> DebugDataAt(Kept.size(), 0);
  if (!Kept.empty()) {
    alignVector(Text, 4);
    DebugAt = uint32_t(Text.size());
    Text.resize(Text.size() + 28 * Kept.size());
    for (size_t I = 0; I < Kept.size(); ++I) {
      if (Kept[I]->Data.empty())
        continue;
      alignVector(Text, 4);
      DebugDataAt[I] = uint32_t(Text.size());
      append(Text, Kept[I]->Data);
    }
  }

  // mscoree's entry point, for PE32 images: import table and stub.
  uint32_t ImportAt = 0, ImportSize = 0, StubAt = 0;
  if (HasStub) {
    alignVector(Text, 4);
    ImportAt = uint32_t(Text.size());
    uint32_t IltAt = ImportAt + 40, HintAt = IltAt + 8;
    bool Dll = In.coff().Characteristics & 0x2000;
    StringRef Entry = Dll ? "_CorDllMain" : "_CorExeMain";
    uint32_t NameAt = HintAt + 2 + uint32_t(Entry.size()) + 1;
    NameAt += NameAt % 2;
    StringRef Dll_ = "mscoree.dll";
    ImportSize = NameAt + uint32_t(Dll_.size()) + 1 - ImportAt;
    Text.resize(ImportAt + ImportSize, 0);
    put32(Text, ImportAt + 0, RVA(IltAt));
    put32(Text, ImportAt + 12, RVA(NameAt));
    put32(Text, ImportAt + 16, RVA(IatAt));
    put32(Text, IltAt, RVA(HintAt));
    std::memcpy(&Text[HintAt + 2], Entry.data(), Entry.size());
    std::memcpy(&Text[NameAt], Dll_.data(), Dll_.size());
    put32(Text, IatAt, RVA(HintAt));
    // jmp dword ptr [IAT], with its operand four-byte aligned.
    alignVector(Text, 4);
    Text.push_back(0);
    Text.push_back(0);
    StubAt = uint32_t(Text.size());
    Text.push_back(0xFF);
    Text.push_back(0x25);
    Text.resize(Text.size() + 4, 0);
  }

  // Sections.
  struct Sec {
    const char *Name;
    std::vector<uint8_t> Data;
    uint32_t Flags;
    uint32_t RVA = 0, FileOffset = 0;
  };
  std::vector<Sec> Secs;
  Secs.push_back({".text", {}, 0x60000020});
  uint32_t TextSize = uint32_t(Text.size() - HeadersSize);
  uint32_t NextRVA = alignTo(uint64_t(TextRVA) + TextSize, SectionAlignment);
  uint32_t ResourceDirRVA = 0;
  if (ResourceSection) {
    // The resource directory and the data it points at; in a ReadyToRun image they sit inside the
    // code section, so only their own range is taken.
    DataDirectory Res = In.directory(DirResource);
    Expected<std::vector<uint8_t>> Data = In.readMapped(Res.RVA, Res.Size, "Win32 resources");
    if (!Data)
      return Data.takeError();
    Sec R{".rsrc", std::move(*Data), 0x40000040};
    R.RVA = NextRVA;
    std::set<uint32_t> Seen;
    if (Error E = rebaseResources(R.Data, 0, 0, int64_t(R.RVA) - Res.RVA, Res.RVA,
                                  Res.RVA + Res.Size, 0, Seen))
      return std::move(E);
    ResourceDirRVA = R.RVA;
    NextRVA = alignTo(uint64_t(R.RVA) + R.Data.size(), SectionAlignment);
    Secs.push_back(std::move(R));
  }
  uint32_t RelocRVA = 0;
  if (HasStub) {
    Sec R{".reloc", std::vector<uint8_t>(12, 0), 0x42000040};
    R.RVA = RelocRVA = NextRVA;
    uint32_t Operand = RVA(StubAt + 2);
    put32(R.Data, 0, Operand & ~0xFFFu);
    put32(R.Data, 4, 12);
    put16(R.Data, 8, uint16_t(0x3000 | (Operand & 0xFFF)));
    NextRVA = alignTo(uint64_t(R.RVA) + R.Data.size(), SectionAlignment);
    Secs.push_back(std::move(R));
  }
  Secs[0].RVA = TextRVA;
  uint32_t FileOffset = HeadersSize;
  for (size_t I = 0; I < Secs.size(); ++I) {
    Secs[I].FileOffset = FileOffset;
    FileOffset += alignTo(I == 0 ? TextSize : Secs[I].Data.size(), FileAlignment);
  }

  // Now that file offsets are known: the debug directory entries, the stub's target, the CLI
  // header.
  for (size_t I = 0; I < Kept.size(); ++I) {
    const DebugEntry &E = *Kept[I];
    size_t At = DebugAt + 28 * I;
    put32(Text, At + 0, E.Characteristics);
    put32(Text, At + 4, E.TimeDateStamp);
    put16(Text, At + 8, E.MajorVersion);
    put16(Text, At + 10, E.MinorVersion);
    put32(Text, At + 12, E.Type);
    put32(Text, At + 16, uint32_t(E.Data.size()));
    put32(Text, At + 20, E.Data.empty() ? 0 : RVA(DebugDataAt[I]));
    put32(Text, At + 24, E.Data.empty() ? 0 : DebugDataAt[I]);
  }
  uint64_t ImageBase = Opt.ImageBase;
  if (!PE32Plus && ImageBase > 0xFFFFFFFF)
    ImageBase = 0x00400000;
  if (HasStub)
    put32(Text, StubAt + 2, uint32_t(ImageBase + RVA(IatAt)));
  uint32_t Flags = Cli.Flags;
  if (Report.WasReadyToRun)
    Flags = (Flags | CliILOnly) & ~uint32_t(CliILLibrary);
  if (SignWith)
    Flags |= CliStrongNameSigned;
  else
    Flags &= ~uint32_t(CliStrongNameSigned);
  {
    size_t H = CliHeaderAt;
    put32(Text, H + 0, CliHeaderSize);
    put16(Text, H + 4, Cli.MajorRuntimeVersion);
    put16(Text, H + 6, Cli.MinorRuntimeVersion);
    put32(Text, H + 8, RVA(MetadataAt));
    put32(Text, H + 12, MetadataSize);
    put32(Text, H + 16, Flags);
    put32(Text, H + 20, Cli.EntryPoint);
    put32(Text, H + 24, ResourcesSize ? RVA(ResourcesAt) : 0);
    put32(Text, H + 28, ResourcesSize);
    put32(Text, H + 32, SignatureSize ? RVA(SignatureAt) : 0);
    put32(Text, H + 36, SignatureSize);
    // Code manager table, vtable fixups, export address table jumps and managed-native header stay
    // zero.
  }

  // Headers, in front of .text in the same buffer; the other sections after it.
  std::vector<uint8_t> File = std::move(Text);
  File.resize(FileOffset, 0);
  for (size_t I = 1; I < Secs.size(); ++I)
    std::memcpy(&File[Secs[I].FileOffset], Secs[I].Data.data(), Secs[I].Data.size());
  uint32_t DosSize = In.peHeaderOffset();
  std::memcpy(File.data(), In.bytes().data(), std::min<size_t>(DosSize, In.bytes().size()));
  size_t P = DosSize;
  put32(File, P, 0x00004550);
  P += 4;
  uint16_t OptSize = PE32Plus ? 240 : 224;
  put16(File, P + 0, Machine);
  put16(File, P + 2, uint16_t(Secs.size()));
  put32(File, P + 4, In.coff().TimeDateStamp);
  put16(File, P + 16, OptSize);
  put16(File, P + 18, In.coff().Characteristics);
  P += 20;
  size_t OptAt = P;
  uint32_t CodeSize = alignTo(TextSize, FileAlignment), InitData = 0;
  for (size_t I = 1; I < Secs.size(); ++I)
    InitData += alignTo(Secs[I].Data.size(), FileAlignment);
  uint32_t ImageSize = NextRVA;
  put16(File, P, PE32Plus ? 0x20B : 0x10B);
  File[P + 2] = Opt.MajorLinkerVersion;
  File[P + 3] = Opt.MinorLinkerVersion;
  put32(File, P + 4, CodeSize);
  put32(File, P + 8, InitData);
  put32(File, P + 16, HasStub ? RVA(StubAt) : 0);
  put32(File, P + 20, TextRVA);
  size_t W; // start of the windows-specific fields
  if (PE32Plus) {
    put64(File, P + 24, ImageBase);
    W = P + 32;
  } else {
    put32(File, P + 24, Secs.size() > 1 ? Secs[1].RVA : ImageSize);
    put32(File, P + 28, uint32_t(ImageBase));
    W = P + 32;
  }
  put32(File, W + 0, SectionAlignment);
  put32(File, W + 4, FileAlignment);
  put16(File, W + 8, Opt.MajorOSVersion);
  put16(File, W + 10, Opt.MinorOSVersion);
  put16(File, W + 12, Opt.MajorImageVersion);
  put16(File, W + 14, Opt.MinorImageVersion);
  put16(File, W + 16, Opt.MajorSubsystemVersion);
  put16(File, W + 18, Opt.MinorSubsystemVersion);
  put32(File, W + 24, ImageSize);
  put32(File, W + 28, HeadersSize);
  size_t ChecksumAt = W + 32;
  put16(File, W + 36, Opt.Subsystem);
  put16(File, W + 38, Opt.DllCharacteristics);
  size_t D; // data directories
  if (PE32Plus) {
    put64(File, W + 40, Opt.SizeOfStackReserve);
    put64(File, W + 48, Opt.SizeOfStackCommit);
    put64(File, W + 56, Opt.SizeOfHeapReserve);
    put64(File, W + 64, Opt.SizeOfHeapCommit);
    put32(File, W + 76, 16);
    D = W + 80;
  } else {
    auto Clamp = [](uint64_t V) { return uint32_t(std::min<uint64_t>(V, 0xFFFFFFFF)); };
    put32(File, W + 40, Clamp(Opt.SizeOfStackReserve));
    put32(File, W + 44, Clamp(Opt.SizeOfStackCommit));
    put32(File, W + 48, Clamp(Opt.SizeOfHeapReserve));
    put32(File, W + 52, Clamp(Opt.SizeOfHeapCommit));
    put32(File, W + 60, 16);
    D = W + 64;
  }
  auto Dir = [&](unsigned Index, uint32_t DirRVA, uint32_t Size) {
    put32(File, D + 8 * Index, DirRVA);
    put32(File, D + 8 * Index + 4, Size);
  };
  if (HasStub) {
    Dir(DirImport, RVA(ImportAt), ImportSize);
    Dir(DirIAT, RVA(IatAt), 8);
    Dir(DirBaseReloc, RelocRVA, 12);
  }
  if (ResourceSection)
    Dir(DirResource, ResourceDirRVA, In.directory(DirResource).Size);
  if (!Kept.empty())
    Dir(DirDebug, RVA(DebugAt), uint32_t(28 * Kept.size()));
  Dir(DirCLR, RVA(CliHeaderAt), CliHeaderSize);
  Report.AuthenticodeRemoved = In.directory(DirSecurity).Size != 0;
  P = D + 16 * 8;
  assert(P == OptAt + OptSize);
  (void)OptAt;
  for (size_t I = 0; I < Secs.size(); ++I) {
    const Sec &S = Secs[I];
    uint32_t Size = uint32_t(I == 0 ? TextSize : S.Data.size());
    std::memcpy(&File[P], S.Name, std::strlen(S.Name));
    put32(File, P + 8, Size);
    put32(File, P + 12, S.RVA);
    put32(File, P + 16, alignTo(Size, FileAlignment));
    put32(File, P + 20, S.FileOffset);
    put32(File, P + 36, S.Flags);
    P += 40;
  }

  Slot.FileOffset = SignatureSize ? SignatureAt : 0;
  Slot.Size = SignatureSize;
  Slot.ChecksumOffset = ChecksumAt;
  Slot.CertificateDirOffset = D + 8 * DirSecurity;
  if (Opt.CheckSum)
    put32(File, ChecksumAt, peChecksum(File, ChecksumAt));
  return std::move(File);
}

} // namespace weft::pe
