//===- metadata/pdb/SequencePoints.h - Portable PDB sequence points -*- C++ -*-===//
//
// Reads what maps IL offsets to source lines out of a portable PDB (the format Roslyn writes):
// the Document table (names stored as separator and parts in the #Blob heap) and the sequence
// points blob of each MethodDebugInformation row, as the Portable PDB specification
// ("MethodDebugInformation Table (0x31)", "Sequence Points Blob") describes them.
//
// A standalone portable PDB is metadata on its own, read by Module::create; its
// MethodDebugInformation table is parallel to the assembly's MethodDef table.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_METADATA_PDB_SEQUENCEPOINTS_H
#define WEFT_METADATA_PDB_SEQUENCEPOINTS_H

#include "metadata/Module.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace weft::metadata::pdb {

/// The line of a hidden sequence point (code that belongs to no source line).
constexpr uint32_t HiddenLine = 0xFEEFEE;

struct SequencePoint {
  uint32_t ILOffset = 0;
  uint32_t Document = 0; // a Document row
  uint32_t StartLine = 0, EndLine = 0;
  uint32_t StartColumn = 0, EndColumn = 0;
  bool isHidden() const { return StartLine == HiddenLine; }
};

/// Decodes a sequence points blob that starts at file offset \p FileOffset. \p Document is the
/// MethodDebugInformation row's Document (0: the blob's header names the initial document).
/// Errors name the blob and the offset of the bad record.
llvm::Expected<std::vector<SequencePoint>>
decodeSequencePoints(llvm::ArrayRef<uint8_t> Blob, uint32_t Document, uint64_t FileOffset = 0);

/// Encodes sequence points (sorted by IL offset, offsets distinct) as a sequence points blob, the
/// inverse of decodeSequencePoints: \p LocalSignature is the method's StandAloneSig row (0 for
/// none); \p Document is the MethodDebugInformation row's Document (0: the blob names the
/// initial document in its header and records document changes).
std::vector<uint8_t> encodeSequencePoints(llvm::ArrayRef<SequencePoint> Points,
                                          uint32_t LocalSignature, uint32_t Document);

/// A Document row's name: the parts of its Name blob joined by its separator.
llvm::Expected<std::string> documentName(const Module &Pdb, uint32_t DocumentRow);

/// The sequence points of method \p MethodRow (a MethodDef row of the assembly the PDB
/// describes); none if the PDB has no information for it.
llvm::Expected<std::vector<SequencePoint>> methodSequencePoints(const Module &Pdb,
                                                                uint32_t MethodRow);

/// A standalone portable PDB file, opened and read.
class PortablePdb {
public:
  /// Maps and reads \p Path; errors name the file.
  static llvm::Expected<std::unique_ptr<PortablePdb>> open(llvm::StringRef Path);
  /// Reads the PDB in \p Buffer (an embedded one, inflated); errors name it \p Name.
  static llvm::Expected<std::unique_ptr<PortablePdb>>
  fromBuffer(std::unique_ptr<llvm::MemoryBuffer> Buffer, llvm::StringRef Name);
  const Module &module() const { return *M; }
  /// The PDB id: the GUID and stamp that the assembly's CodeView debug entry repeats.
  const std::array<uint8_t, 20> &id() const { return M->pdb()->Id; }
  uint32_t documentCount() const { return M->rowCount(TableId::Document); }
  uint32_t methodCount() const { return M->rowCount(TableId::MethodDebugInformation); }

private:
  std::unique_ptr<llvm::MemoryBuffer> Buffer;
  std::unique_ptr<Module> M;
};

} // namespace weft::metadata::pdb

#endif
