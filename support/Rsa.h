//===- support/Rsa.h - RSA signatures (PKCS #1 v1.5) ------------*- C++ -*-===//
//
// The RSA arithmetic a strong-name signer needs: RSASSA-PKCS1-v1_5 signing and verification
// (RFC 8017, sections 8.2 and 9.2) over SHA-1 and SHA-256 digests. Numbers are big-endian byte
// strings, as in the RFC. Exponentiation uses Montgomery multiplication on 32-bit limbs.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_SUPPORT_RSA_H
#define WEFT_SUPPORT_RSA_H

#include "support/Digest.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace weft {

struct RsaPublicKey {
  std::vector<uint8_t> Modulus, Exponent; // big-endian
};

struct RsaPrivateKey {
  RsaPublicKey Public;
  std::vector<uint8_t> PrivateExponent; // big-endian
};

/// Signs \p Digest (made by \p Kind). The result is as long as the modulus, big-endian. Nothing
/// if the key cannot make a signature: an even or too short modulus, or a signature that does
/// not verify with the public key (the key's numbers do not belong together).
std::optional<std::vector<uint8_t>> rsaSignPkcs1(const RsaPrivateKey &Key, DigestKind Kind,
                                                 llvm::ArrayRef<uint8_t> Digest);

/// Whether \p Signature (big-endian) is the PKCS #1 v1.5 signature of \p Digest under \p Key.
bool rsaVerifyPkcs1(const RsaPublicKey &Key, DigestKind Kind, llvm::ArrayRef<uint8_t> Digest,
                    llvm::ArrayRef<uint8_t> Signature);

} // namespace weft

#endif
