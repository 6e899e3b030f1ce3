//===- support/Digest.h - SHA-1 and SHA-256 digests -------------*- C++ -*-===//
//
// The digests strong-name signatures and portable PDB checksums are made of, computed by LLVM
// Support.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_SUPPORT_DIGEST_H
#define WEFT_SUPPORT_DIGEST_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <vector>

namespace weft {

enum class DigestKind { SHA1, SHA256 };

/// The digest of the concatenation of \p Pieces.
std::vector<uint8_t> digest(DigestKind Kind, llvm::ArrayRef<llvm::ArrayRef<uint8_t>> Pieces);

} // namespace weft

#endif
