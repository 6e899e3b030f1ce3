//===- pe/Sha256OpenSsl.cpp - SHA-256 through OpenSSL's libcrypto ---------===//
//
// The SHA256_* functions run the same code (the processor's SHA instructions where it has them)
// as EVP's digest, without OpenSSL 3's providers: the first EVP fetch in a process loads and
// initialises them, which added 1.9 MiB to a weave's resident memory (libcrypto's pages and its
// tables) for one hash.
//
//===----------------------------------------------------------------------===//
#include "pe/Sha256Hasher.h"

// SHA256_Init and its siblings, which OpenSSL 3 deprecates in favour of EVP (see above).
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>

namespace weft::pe::detail {

struct Sha256Hasher::State {
  SHA256_CTX C;
  bool Ok = false;
};

Sha256Hasher::Sha256Hasher() : S(std::make_unique<State>()) { S->Ok = SHA256_Init(&S->C) == 1; }

Sha256Hasher::~Sha256Hasher() = default;

bool Sha256Hasher::update(llvm::ArrayRef<uint8_t> Bytes) {
  S->Ok = S->Ok && SHA256_Update(&S->C, Bytes.data(), Bytes.size()) == 1;
  return S->Ok;
}

std::optional<std::array<uint8_t, 32>> Sha256Hasher::digest() {
  static_assert(SHA256_DIGEST_LENGTH == 32);
  std::array<uint8_t, 32> D;
  if (!S->Ok || SHA256_Final(D.data(), &S->C) != 1)
    return std::nullopt;
  S->Ok = false; // the context is spent
  return D;
}

const char *Sha256Hasher::library() { return "OpenSSL"; }

} // namespace weft::pe::detail
