//===- pe/Sha256Hasher.h - A SHA-256 through the linked library -*- C++ -*-===//
//
// What pe/Sha256.cpp asks of the crypto library the build links: Sha256OpenSsl.cpp (OpenSSL's
// libcrypto) or Sha256Gcrypt.cpp (libgcrypt, the win-x64 build). Both use the processor's SHA
// instructions where it has them. For pe/'s own files only.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_PE_SHA256HASHER_H
#define WEFT_PE_SHA256HASHER_H

#include "llvm/ADT/ArrayRef.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>

namespace weft::pe::detail {

/// A SHA-256 under way; each step fails (false, or no digest) once one failed: the library
/// fails only without memory.
class Sha256Hasher {
public:
  Sha256Hasher();
  Sha256Hasher(const Sha256Hasher &) = delete;
  Sha256Hasher &operator=(const Sha256Hasher &) = delete;
  ~Sha256Hasher();

  bool update(llvm::ArrayRef<uint8_t> Bytes);
  std::optional<std::array<uint8_t, 32>> digest();

  /// The library's name, for messages: "OpenSSL", "libgcrypt".
  static const char *library();

private:
  struct State;
  std::unique_ptr<State> S;
};

} // namespace weft::pe::detail

#endif
