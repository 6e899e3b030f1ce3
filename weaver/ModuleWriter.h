//===- weaver/ModuleWriter.h - A module with its edits, as a file -*- C++ -*-===//
//
// Writes an assembly with the edits made to it: the metadata from the editor, the method bodies
// that were re-encoded, and every other body and field data copied as it was. The PE layout is
// made anew (pe::ImageBuilder).
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_WEAVER_MODULEWRITER_H
#define WEFT_WEAVER_MODULEWRITER_H

#include "pe/Writer.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <vector>

namespace weft::pe {
class Image;
}
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

/// \p NewBodies replaces the bodies of those MethodDef rows (new methods included); the others
/// keep theirs. \p KeepStrongName keeps the strong-name flag for a signer that runs afterwards.
llvm::Expected<WrittenModule> writeModule(const pe::Image &In, metadata::Editor &E,
                                          const std::map<uint32_t, NewBody> &NewBodies,
                                          bool KeepStrongName = false);

} // namespace weft

#endif
