//===- tests/support/PeFile.h - Edits of a PE file for made inputs -*- C++ -*-===//
//
// The generators of test inputs (PtrTablesImage, MixedModeImage) copy a real assembly and change
// a few things in it: a section appended, a data directory or a CLI header field rewritten. This
// does those edits on the file's bytes with its own reading of the headers, so that an input made
// for weft's reader does not depend on weft's PE code to be right.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_TESTS_SUPPORT_PEFILE_H
#define WEFT_TESTS_SUPPORT_PEFILE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace weft::pe {
class Image;
}
namespace weft::metadata {
class Module;
}

namespace weft::test {

/// The assembly a generator starts from, read with weft's reader: an IL-only image (not
/// ReadyToRun), neither strong-name signed nor with a native entry point, whose bytes the
/// generator copies and changes.
struct SourceAssembly {
  std::unique_ptr<llvm::MemoryBuffer> Buffer;
  std::unique_ptr<pe::Image> Image;
  std::unique_ptr<metadata::Module> Module;
  SourceAssembly();
  SourceAssembly(SourceAssembly &&);
  ~SourceAssembly();
  llvm::ArrayRef<uint8_t> bytes() const;
};
/// Reads \p Path, or says why a generator cannot start from it (errors name the file).
llvm::Expected<SourceAssembly> readSourceAssembly(llvm::StringRef Path);

class PeFile {
public:
  /// Takes the bytes of a PE image; fails if its headers are not where a PE image has them.
  static llvm::Expected<PeFile> parse(std::vector<uint8_t> Bytes);

  const std::vector<uint8_t> &bytes() const { return Bytes; }
  uint16_t read16(uint64_t Offset) const;
  uint32_t read32(uint64_t Offset) const;
  void write16(uint64_t Offset, uint16_t V);
  void write32(uint64_t Offset, uint32_t V);

  bool isPE32Plus() const { return PE32Plus; }
  /// The file offset of a data directory entry (its RVA; the size follows).
  uint64_t directoryOffset(unsigned Index) const;
  uint32_t directoryRVA(unsigned Index) const { return read32(directoryOffset(Index)); }
  void setDirectory(unsigned Index, uint32_t RVA, uint32_t Size);
  /// The file offset of \p RVA, if a section's file data holds it.
  llvm::Expected<uint64_t> offsetOf(uint32_t RVA) const;
  /// The file offset of the CLI header.
  llvm::Expected<uint64_t> cliHeaderOffset() const;

  /// The RVA the next section added will have.
  uint32_t nextSectionRVA() const;
  /// Appends a section holding \p Data after the last one, in the file and in memory, and returns
  /// its RVA. The headers grow if they have no room for one more section header (file offsets
  /// taken before then are stale).
  llvm::Expected<uint32_t> addSection(llvm::StringRef Name, llvm::ArrayRef<uint8_t> Data,
                                      uint32_t Characteristics);

private:
  llvm::Error growHeaders();
  explicit PeFile(std::vector<uint8_t> B) : Bytes(std::move(B)) {}
  uint64_t optionalHeader() const { return PEOffset + 24; }
  uint64_t sectionHeader(unsigned I) const;
  uint16_t sectionCount() const { return read16(PEOffset + 6); }

  std::vector<uint8_t> Bytes;
  uint32_t PEOffset = 0;
  bool PE32Plus = false;
};

} // namespace weft::test

#endif
