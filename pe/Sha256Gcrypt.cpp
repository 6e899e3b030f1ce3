//===- pe/Sha256Gcrypt.cpp - SHA-256 through libgcrypt --------------------===//
//
// pe/Sha256Hasher.h where there is no OpenSSL (the win-x64 build): libgcrypt, which also uses
// the processor's SHA instructions where it has them.
//
//===----------------------------------------------------------------------===//
#include "pe/Sha256Hasher.h"

#include <cstring>
#include <gcrypt.h>

namespace weft::pe::detail {

struct Sha256Hasher::State {
  gcry_md_hd_t H = nullptr;
  bool Ok = false;
};

Sha256Hasher::Sha256Hasher() : S(std::make_unique<State>()) {
  static bool Ready = gcry_check_version(nullptr) != nullptr; // once, before first use
  S->Ok = Ready && gcry_md_open(&S->H, GCRY_MD_SHA256, 0) == 0;
}

Sha256Hasher::~Sha256Hasher() {
  if (S->H)
    gcry_md_close(S->H);
}

bool Sha256Hasher::update(llvm::ArrayRef<uint8_t> Bytes) {
  if (S->Ok)
    gcry_md_write(S->H, Bytes.data(), Bytes.size());
  return S->Ok;
}

std::optional<std::array<uint8_t, 32>> Sha256Hasher::digest() {
  const unsigned char *D = S->Ok ? gcry_md_read(S->H, GCRY_MD_SHA256) : nullptr;
  if (!D || gcry_md_get_algo_dlen(GCRY_MD_SHA256) != 32)
    return std::nullopt;
  std::array<uint8_t, 32> Out;
  std::memcpy(Out.data(), D, Out.size());
  return Out;
}

const char *Sha256Hasher::library() { return "libgcrypt"; }

} // namespace weft::pe::detail
