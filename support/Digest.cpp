//===- support/Digest.cpp - SHA-1 and SHA-256 digests ---------------------===//
#include "support/Digest.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SHA1.h"
#include "llvm/Support/SHA256.h"

using namespace llvm;

namespace weft {

std::vector<uint8_t> digest(DigestKind Kind, ArrayRef<ArrayRef<uint8_t>> Pieces) {
  auto Run = [&](auto &H) {
    for (ArrayRef<uint8_t> P : Pieces)
      H.update(P);
    StringRef R = H.final();
    return std::vector<uint8_t>(R.bytes_begin(), R.bytes_end());
  };
  if (Kind == DigestKind::SHA1) {
    SHA1 H;
    return Run(H);
  }
  SHA256 H;
  return Run(H);
}

} // namespace weft
