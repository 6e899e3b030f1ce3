//===- pe/Rsa.h - RSA signatures (PKCS #1 v1.5) -----------------*- C++ -*-===//
//
// RSASSA-PKCS1-v1_5 signing and verification (RFC 8017, sections 8.2 and 9.2) over SHA-1 and
// SHA-256 digests, as strong names need them. OpenSSL's libcrypto does the arithmetic: its
// private-key operation does not branch on the key's bits, and it uses the Chinese remainder
// theorem when the key carries its primes. Numbers are big-endian byte strings, as in the RFC.
// Strong names are RSA's only user, so it lives in pe/ (support/ uses LLVM Support alone).
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_PE_RSA_H
#define WEFT_PE_RSA_H

#include "support/Digest.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace weft::pe {

struct RsaPublicKey {
  std::vector<uint8_t> Modulus, Exponent; // big-endian
};

/// A key pair. The CRT parts (the primes p and q, d mod p-1, d mod q-1 and q^-1 mod p) are all
/// given or all empty; without them the signer exponentiates with d alone.
struct RsaPrivateKey {
  RsaPublicKey Public;
  std::vector<uint8_t> PrivateExponent;
  std::vector<uint8_t> Prime1, Prime2, Exponent1, Exponent2, Coefficient;
};

/// Whether the numbers of \p Key belong together: the primes multiply to the modulus, the CRT
/// exponents are d reduced modulo p-1 and q-1 and invert e there, the coefficient inverts q
/// modulo p. A key without CRT parts passes; signing finds out whether its d is right.
llvm::Error checkRsaKey(const RsaPrivateKey &Key);

/// Signs \p Digest (made by \p Kind). The result is as long as the modulus, big-endian. Refuses a
/// key that fails checkRsaKey or makes a signature its public half does not verify.
llvm::Expected<std::vector<uint8_t>> rsaSignPkcs1(const RsaPrivateKey &Key, DigestKind Kind,
                                                  llvm::ArrayRef<uint8_t> Digest);

/// Whether \p Signature (big-endian, as long as the modulus) is the PKCS #1 v1.5 signature of
/// \p Digest under \p Key.
bool rsaVerifyPkcs1(const RsaPublicKey &Key, DigestKind Kind, llvm::ArrayRef<uint8_t> Digest,
                    llvm::ArrayRef<uint8_t> Signature);

} // namespace weft::pe

#endif
