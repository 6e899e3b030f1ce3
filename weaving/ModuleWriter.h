//===- weaving/ModuleWriter.h - A module with its edits, as a file -*- C++ -*-===//
//
// Writes an assembly with the edits made to it: the metadata from the editor, the method bodies
// that were re-encoded, and every other body and field data copied as it was. The PE layout is
// made anew (pe::ImageBuilder).
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_WEAVING_MODULEWRITER_H
#define WEFT_WEAVING_MODULEWRITER_H

#include "pe/Writer.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

namespace weft::pe {
class Image;
class StrongNameKey;
} // namespace weft::pe
namespace weft::metadata {
class Editor;
}

namespace weft {

struct NewBody {
  std::vector<uint8_t> Bytes; // as the encoder made them
  bool Fat = true;
};

struct WrittenModule {
  std::vector<uint8_t> Bytes;
  pe::BuildReport Report;
  pe::SignatureSlot Slot;
  uint32_t BodiesCopied = 0, BodiesWritten = 0;
};

/// A body as a provider hands it over: the bytes need only live until the provider is asked again.
struct BodyBytes {
  llvm::ArrayRef<uint8_t> Bytes;
  bool Fat = true;
};

/// Gives the new body of a MethodDef row, or nothing to keep the original one. The writer asks
/// for each row in turn and copies the result at once, so bodies need not all be held at the same
/// time.
using BodyProvider = llvm::function_ref<llvm::Expected<std::optional<BodyBytes>>(uint32_t Row)>;

struct WriteOptions {
  /// Strong-name sign the output with this key (see writeModule).
  const pe::StrongNameKey *Key = nullptr;
  /// New data for the debug directory entries of the given types (a PDB checksum for a rewritten
  /// PDB).
  pe::DebugDataOverrides DebugData;
  /// Called once, after the bodies of the module's own methods and before those of methods the
  /// edits added: the last moment to add rows (methods with bodies, ...) and debug data, for an
  /// editor that makes its edits while the bodies are written.
  std::function<llvm::Error(pe::DebugDataOverrides &)> AfterOriginalBodies;
};

/// Writes the module; \p Provide may replace the body of any MethodDef row (new methods included).
/// With \p Key the output is strong-name signed with it: an assembly that has a public key must
/// have this key's, one without gets this key's public key. Without one a signed input is written
/// unsigned (the report says so).
/// \p DebugData replaces the data of the debug directory entries of the given types (a PDB
/// checksum for a rewritten PDB).
llvm::Expected<WrittenModule> writeModule(const pe::Image &In, metadata::Editor &E,
                                          BodyProvider Provide, const WriteOptions &Options);
llvm::Expected<WrittenModule> writeModule(const pe::Image &In, metadata::Editor &E,
                                          BodyProvider Provide,
                                          const pe::StrongNameKey *Key = nullptr,
                                          const pe::DebugDataOverrides &DebugData = {});
/// The same with the new bodies given up front.
llvm::Expected<WrittenModule> writeModule(const pe::Image &In, metadata::Editor &E,
                                          const std::map<uint32_t, NewBody> &NewBodies,
                                          const pe::StrongNameKey *Key = nullptr,
                                          const pe::DebugDataOverrides &DebugData = {});

} // namespace weft

#endif
