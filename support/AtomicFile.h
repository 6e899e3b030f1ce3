//===- support/AtomicFile.h - Writing a file all at once --------*- C++ -*-===//
//
// Output files are written to a temporary file beside the target and renamed over it once
// complete, so that a failure leaves no partial output and the target is never half written.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_SUPPORT_ATOMICFILE_H
#define WEFT_SUPPORT_ATOMICFILE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace weft {

/// Writes \p Bytes to \p Path atomically; errors name the path.
llvm::Error writeFileAtomically(llvm::StringRef Path, llvm::ArrayRef<uint8_t> Bytes);

} // namespace weft

#endif
