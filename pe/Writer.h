//===- pe/Writer.h - Laying out a managed image anew ------------*- C++ -*-===//
//
// Builds a new PE file for a managed (IL-only) image, in the way compilers lay one out: a .text
// section with the import address table, the CLI header, method bodies, mapped field data, the
// metadata, managed resources, the strong-name signature slot, the debug directory and its data,
// and (for PE32 images, which Windows starts through mscoree) the import table and entry stub; a
// .rsrc section with the Win32 resources of the input, rebased; a .reloc section for the stub.
//
// Nothing of the input is patched in place. What the new image keeps from the input: the DOS stub,
// machine, time stamp, characteristics, image base, alignments, versions, subsystem, DLL
// characteristics, stack and heap sizes, the CLI header's runtime version, flags and entry point.
// A ReadyToRun input becomes IL-only (its native code, managed-native header and exception data are
// left out and its flags corrected). Inputs whose native parts cannot be carried over (C++/CLI
// mixed-mode code, exports, TLS, vtable fixups) are refused with a message saying which.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_PE_WRITER_H
#define WEFT_PE_WRITER_H

#include "pe/Image.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace weft::pe {

struct BuildReport {
  bool WasReadyToRun = false;       // the native code was left out
  bool StrongNameRemoved = false;   // the input was strong-name signed and is no longer
  bool AuthenticodeRemoved = false; // the input had a certificate table, which no longer applies
  bool PerfMapRemoved = false;
  /// The output's file alignment: the input's, or 0x200 where the input's suits only native code
  /// (ReadyToRun) or is not one the format allows.
  uint32_t FileAlignment = 0;
};

/// Where the strong-name signature of a built image goes, for a signer.
struct SignatureSlot {
  uint64_t FileOffset = 0;
  uint32_t Size = 0;
  uint64_t ChecksumOffset = 0;       // the optional header's CheckSum field
  uint64_t CertificateDirOffset = 0; // the certificate data directory entry
};

/// New data for the debug directory entries of a type (DebugType), in place of the input's.
using DebugDataOverrides = std::map<uint32_t, std::vector<uint8_t>>;

class ImageBuilder {
public:
  /// Checks that \p Input can be written anew and prepares the layout; the debug entries of the
  /// types in \p DebugData get that data.
  static llvm::Expected<std::unique_ptr<ImageBuilder>>
  create(const Image &Input, const DebugDataOverrides &DebugData = {});

  /// Places a method body (as encoded: header, code, exception sections); fat bodies are aligned to
  /// four bytes. Returns its RVA. All bodies come before any field data.
  uint32_t addMethodBody(llvm::ArrayRef<uint8_t> Bytes, bool Fat);
  /// Places the data of a field with an RVA (aligned to eight bytes). Returns its RVA.
  uint32_t addFieldData(llvm::ArrayRef<uint8_t> Bytes);
  /// Replaces the debug data given to create (before finish).
  void setDebugData(DebugDataOverrides Data) { DebugData = std::move(Data); }

  /// Lays out the rest of .text around \p Metadata and builds the whole file. A non-zero
  /// \p SignatureSize reserves a strong-name signature slot of that size and marks the image
  /// signed, for a signer that fills the slot afterwards; zero writes an unsigned image.
  llvm::Expected<std::vector<uint8_t>> finish(llvm::ArrayRef<uint8_t> Metadata,
                                              uint32_t SignatureSize);
  /// The same with the metadata appended by \p WriteMetadata to the section being built (at a
  /// four-byte boundary), so that it is not held twice.
  llvm::Expected<std::vector<uint8_t>>
  finish(llvm::function_ref<llvm::Error(std::vector<uint8_t> &Section)> WriteMetadata,
         uint32_t SignatureSize);

  const BuildReport &report() const { return Report; }
  const SignatureSlot &signatureSlot() const { return Slot; }
  /// The RVA the .text section starts at (method bodies follow the CLI header).
  uint32_t textRVA() const { return TextRVA; }

private:
  ImageBuilder(const Image &In, const DebugDataOverrides &DebugData)
      : In(In), DebugData(DebugData) {}
  llvm::Error prepare();

  const Image &In;
  DebugDataOverrides DebugData;
  bool PE32Plus = false;
  uint16_t Machine = 0;
  bool HasStub = false; // PE32 on I386: mscoree import, entry stub, relocation
  uint32_t FileAlignment = 0x200, SectionAlignment = 0x2000;
  uint32_t HeadersSize = 0;
  uint32_t TextRVA = 0;
  std::vector<uint8_t> Text; // the .text section being built
  uint32_t CliHeaderAt = 0;  // offset in Text
  uint32_t IatAt = 0;
  bool DataStarted = false;
  const Section *ResourceSection = nullptr;
  BuildReport Report;
  SignatureSlot Slot;
};

/// The PE checksum of \p File (as the Windows loader computes it), with the CheckSum field at
/// \p ChecksumOffset counted as zero.
uint32_t peChecksum(llvm::ArrayRef<uint8_t> File, uint64_t ChecksumOffset);

} // namespace weft::pe

#endif
