//===- pe/Image.h - A PE/COFF image and its CLI header ----------*- C++ -*-===//
//
// The read-only model of a PE/COFF file as the loader sees it: headers, sections, data directories,
// the CLI (COR20) header, the ReadyToRun header and the debug directory. The file is memory-mapped;
// the model keeps references into the mapping and copies nothing it does not have to.
//
// Image::create checks everything the rest of weft relies on (headers in bounds, sections inside
// the file, the CLI header and the metadata inside a section). Structures that only some commands
// need (the debug directory, the ReadyToRun header) are parsed on request and report their own
// errors, so a damaged debug directory does not stop a dump of the IL.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_PE_IMAGE_H
#define WEFT_PE_IMAGE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace weft::pe {

struct DataDirectory {
  uint32_t RVA = 0;
  uint32_t Size = 0;
  bool empty() const { return RVA == 0 && Size == 0; }
};

/// Indexes of the optional header's data directories.
enum DirectoryIndex : unsigned {
  DirExport = 0,
  DirImport = 1,
  DirResource = 2,
  DirException = 3,
  DirSecurity = 4, // a file offset, not an RVA
  DirBaseReloc = 5,
  DirDebug = 6,
  DirArchitecture = 7,
  DirGlobalPtr = 8,
  DirTLS = 9,
  DirLoadConfig = 10,
  DirBoundImport = 11,
  DirIAT = 12,
  DirDelayImport = 13,
  DirCLR = 14,
  DirReserved = 15,
  DirCount = 16
};
llvm::StringRef directoryName(unsigned Index);

struct CoffHeader {
  uint16_t Machine = 0;
  uint16_t NumberOfSections = 0;
  uint32_t TimeDateStamp = 0;
  uint32_t PointerToSymbolTable = 0;
  uint32_t NumberOfSymbols = 0;
  uint16_t SizeOfOptionalHeader = 0;
  uint16_t Characteristics = 0;
};

/// The optional header, PE32 and PE32+ in one shape (PE32 values widened).
struct OptionalHeader {
  bool PE32Plus = false;
  uint8_t MajorLinkerVersion = 0, MinorLinkerVersion = 0;
  uint32_t SizeOfCode = 0, SizeOfInitializedData = 0, SizeOfUninitializedData = 0;
  uint32_t AddressOfEntryPoint = 0, BaseOfCode = 0, BaseOfData = 0;
  uint64_t ImageBase = 0;
  uint32_t SectionAlignment = 0, FileAlignment = 0;
  uint16_t MajorOSVersion = 0, MinorOSVersion = 0;
  uint16_t MajorImageVersion = 0, MinorImageVersion = 0;
  uint16_t MajorSubsystemVersion = 0, MinorSubsystemVersion = 0;
  uint32_t Win32VersionValue = 0, SizeOfImage = 0, SizeOfHeaders = 0, CheckSum = 0;
  uint16_t Subsystem = 0, DllCharacteristics = 0;
  uint64_t SizeOfStackReserve = 0, SizeOfStackCommit = 0;
  uint64_t SizeOfHeapReserve = 0, SizeOfHeapCommit = 0;
  uint32_t LoaderFlags = 0, NumberOfRvaAndSizes = 0;
  std::array<DataDirectory, DirCount> Directories{};
};

struct Section {
  std::string Name; // up to 8 bytes, NUL padding removed
  uint32_t VirtualSize = 0, VirtualAddress = 0;
  uint32_t SizeOfRawData = 0, PointerToRawData = 0;
  uint32_t PointerToRelocations = 0, PointerToLinenumbers = 0;
  uint16_t NumberOfRelocations = 0, NumberOfLinenumbers = 0;
  uint32_t Characteristics = 0;
  uint64_t HeaderOffset = 0; // where this section header is in the file
};

/// COMIMAGE_FLAGS of the CLI header.
enum CliFlags : uint32_t {
  CliILOnly = 0x1,
  Cli32BitRequired = 0x2,
  CliILLibrary = 0x4,
  CliStrongNameSigned = 0x8,
  CliNativeEntryPoint = 0x10,
  CliTrackDebugData = 0x10000,
  Cli32BitPreferred = 0x20000,
};

struct CliHeader {
  uint32_t Cb = 0;
  uint16_t MajorRuntimeVersion = 0, MinorRuntimeVersion = 0;
  DataDirectory Metadata;
  uint32_t Flags = 0;
  uint32_t EntryPoint = 0; // a token, or an RVA when CliNativeEntryPoint is set
  DataDirectory Resources, StrongNameSignature, CodeManagerTable, VTableFixups,
      ExportAddressTableJumps, ManagedNativeHeader;
  uint64_t FileOffset = 0;
};

/// The READYTORUN_HEADER the managed-native header points at.
struct ReadyToRunHeader {
  static constexpr uint32_t Signature = 0x00525452; // "RTR"
  uint16_t MajorVersion = 0, MinorVersion = 0;
  uint32_t Flags = 0;
  struct SectionEntry {
    uint32_t Type;
    DataDirectory Where;
  };
  std::vector<SectionEntry> Sections;
};
/// Names of the ReadyToRun header flags set in \p Flags, e.g. "component, embedded-msil".
std::string readyToRunFlagNames(uint32_t Flags);

enum DebugType : uint32_t {
  DebugCodeView = 2,
  DebugReproducible = 16,
  DebugEmbeddedPortablePdb = 17,
  DebugPdbChecksum = 19,
};

struct DebugEntry {
  uint32_t Characteristics = 0, TimeDateStamp = 0;
  uint16_t MajorVersion = 0, MinorVersion = 0;
  uint32_t Type = 0, SizeOfData = 0, AddressOfRawData = 0, PointerToRawData = 0;
  uint64_t EntryOffset = 0;     // where the directory entry itself is
  llvm::ArrayRef<uint8_t> Data; // the entry's data, if it lies inside the file

  // Decoded, for the kinds weft knows.
  struct CodeView {
    std::array<uint8_t, 16> Guid{};
    uint32_t Age = 0;
    std::string Path;
  };
  struct EmbeddedPdb {
    uint32_t UncompressedSize = 0;
    llvm::ArrayRef<uint8_t> Compressed; // a raw deflate stream
  };
  struct PdbChecksum {
    std::string Algorithm;
    llvm::ArrayRef<uint8_t> Checksum;
  };
  std::optional<CodeView> CV;
  std::optional<EmbeddedPdb> Embedded;
  std::optional<PdbChecksum> Checksum;

  /// A portable PDB's CodeView and embedded entries carry 0x504D ("PM") as minor version.
  bool isPortableCodeView() const { return Type == DebugCodeView && MinorVersion == 0x504D; }
};
llvm::StringRef debugTypeName(uint32_t Type);

class Image {
public:
  /// Maps \p Path and parses it. Errors name the structure and offset; the caller adds the path.
  static llvm::Expected<std::unique_ptr<Image>> open(llvm::StringRef Path);
  /// Parses an image held in memory (the buffer is owned by the image).
  static llvm::Expected<std::unique_ptr<Image>> create(std::unique_ptr<llvm::MemoryBuffer> Buffer);
  /// Parses an image in memory the caller keeps alive.
  static llvm::Expected<std::unique_ptr<Image>> create(llvm::ArrayRef<uint8_t> Bytes,
                                                       llvm::StringRef Name = "<memory>");
  /// How a loader left an image in memory: as the file (flat), or with each section at its RVA
  /// (mapped).
  enum class Layout : uint8_t { Flat, Mapped };
  /// Parses an image a loader placed at \p Base (the runtime's modules, for the profiler). Its
  /// extent comes from its own headers, which must lie within the first \p HeaderLimit bytes:
  /// SizeOfImage when mapped, the end of the last section's file data when flat. In a mapped
  /// image each section's PointerToRawData is taken to be its RVA and its file data to span its
  /// virtual size, so that everything reads an RVA the same way in both layouts.
  static llvm::Expected<std::unique_ptr<Image>> createLoaded(const uint8_t *Base, Layout L,
                                                             llvm::StringRef Name,
                                                             size_t HeaderLimit = 4096);
  Layout layout() const { return Laid; }

  llvm::StringRef name() const { return Name; }
  llvm::ArrayRef<uint8_t> bytes() const { return Bytes; }

  uint32_t peHeaderOffset() const { return PEOffset; }
  const CoffHeader &coff() const { return Coff; }
  const OptionalHeader &optional() const { return Opt; }
  bool isPE32Plus() const { return Opt.PE32Plus; }
  llvm::ArrayRef<Section> sections() const { return Sections; }
  DataDirectory directory(unsigned Index) const {
    return Index < Opt.NumberOfRvaAndSizes && Index < DirCount ? Opt.Directories[Index]
                                                               : DataDirectory();
  }

  /// The CLI header, if the image has one (a managed image).
  const std::optional<CliHeader> &cli() const { return Cli; }
  bool isManaged() const { return Cli.has_value(); }
  /// The metadata as located by the CLI header (empty if not managed).
  llvm::ArrayRef<uint8_t> metadata() const { return Metadata; }
  uint64_t metadataOffset() const { return MetadataOffset; }

  /// A managed image without the IL-only flag carries native code beside the IL: C++/CLI
  /// (mixed-mode) images, and ReadyToRun images, whose native code is precompiled IL.
  bool isMixedMode() const { return Cli && !(Cli->Flags & CliILOnly) && !isReadyToRun(); }
  /// A managed-native header pointing at a READYTORUN_HEADER.
  bool isReadyToRun() const;
  llvm::Expected<ReadyToRunHeader> readyToRunHeader() const;

  /// The entries of the debug directory, with the data of the kinds weft knows decoded.
  llvm::Expected<std::vector<DebugEntry>> debugEntries() const;

  /// The section holding \p RVA, or null.
  const Section *sectionForRVA(uint32_t RVA) const;
  /// Maps an RVA to a file offset; fails if \p Size bytes from \p RVA are not all backed by the
  /// file. The error names \p What at the file offset \p NamedAt of the field that gave the RVA,
  /// or at the RVA itself when that is not known.
  static constexpr uint64_t UnknownOffset = ~uint64_t(0);
  llvm::Expected<uint64_t> rvaToOffset(uint32_t RVA, uint32_t Size, llvm::StringRef What,
                                       uint64_t NamedAt = UnknownOffset) const;
  /// The bytes at [RVA, RVA + Size), which must all be in the file.
  llvm::Expected<llvm::ArrayRef<uint8_t>> rvaBytes(uint32_t RVA, uint32_t Size,
                                                   llvm::StringRef What,
                                                   uint64_t NamedAt = UnknownOffset) const;
  /// [RVA, RVA + Size) as the loader maps it: the bytes the file holds, then the zeros a section
  /// has beyond its file data (up to its virtual size). Fails if the range leaves the section.
  struct MappedRange {
    llvm::ArrayRef<uint8_t> Backed;
    uint32_t Zeros = 0;
  };
  llvm::Expected<MappedRange> mappedRange(uint32_t RVA, uint32_t Size, llvm::StringRef What) const;
  /// The same as one buffer. The zeros are limited to MaxMappedZeros: a section's virtual size
  /// comes from the file and could otherwise ask for gigabytes.
  static constexpr uint32_t MaxMappedZeros = 16u << 20;
  llvm::Expected<std::vector<uint8_t>> readMapped(uint32_t RVA, uint32_t Size,
                                                  llvm::StringRef What) const;
  /// The bytes from \p RVA to the end of its section's data (for structures whose size is only
  /// known after reading them, such as method bodies). Empty if the RVA is not backed by the file.
  llvm::ArrayRef<uint8_t> rvaTail(uint32_t RVA, uint64_t *FileOffset = nullptr) const;

private:
  Image() = default;
  llvm::Error parse();
  llvm::Error parseCli();

  std::unique_ptr<llvm::MemoryBuffer> Owned;
  llvm::ArrayRef<uint8_t> Bytes;
  Layout Laid = Layout::Flat;
  bool Loaded = false; // placed by a loader (createLoaded), not read from a file
  std::string Name;
  uint32_t PEOffset = 0;
  CoffHeader Coff;
  OptionalHeader Opt;
  std::vector<Section> Sections;
  std::optional<CliHeader> Cli;
  llvm::ArrayRef<uint8_t> Metadata;
  uint64_t MetadataOffset = 0;
};

/// True if \p Bytes starts like a PE image ("MZ" and a "PE\0\0" signature where e_lfanew says).
bool looksLikePE(llvm::ArrayRef<uint8_t> Bytes);

/// Machine type names as in the COFF specification ("I386", "AMD64", "ARM64", ...).
llvm::StringRef machineName(uint16_t Machine);
llvm::StringRef subsystemName(uint16_t Subsystem);

} // namespace weft::pe

#endif
