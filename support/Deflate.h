//===- support/Deflate.h - Raw deflate streams ------------------*- C++ -*-===//
//
// An embedded portable PDB is stored in the debug directory as a raw deflate stream (RFC 1951,
// no zlib or gzip wrapper). zlib, which LLVM Support links already, does the work.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_SUPPORT_DEFLATE_H
#define WEFT_SUPPORT_DEFLATE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace weft {

/// Inflates \p Compressed, which must give exactly \p Size bytes (the size the container states,
/// checked against \p MaxSize before anything is allocated). Errors name \p Structure and the file
/// offset \p FileOffset of the stream.
llvm::Expected<std::vector<uint8_t>> inflateRaw(llvm::ArrayRef<uint8_t> Compressed, uint64_t Size,
                                                uint64_t MaxSize, const llvm::Twine &Structure,
                                                uint64_t FileOffset);

/// Deflates \p Data as a raw stream; the same input always gives the same bytes.
std::vector<uint8_t> deflateRaw(llvm::ArrayRef<uint8_t> Data);

} // namespace weft

#endif
