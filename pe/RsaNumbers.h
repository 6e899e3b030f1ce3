//===- pe/RsaNumbers.h - RSA's numbers in the linked library ----*- C++ -*-===//
//
// What pe/Rsa.cpp asks of the crypto library the build links: RsaOpenSsl.cpp (OpenSSL's
// libcrypto) or RsaGcrypt.cpp (libgcrypt, the win-x64 build). Rsa.cpp holds what both builds
// share: which numbers a key has, the checks of a key pair, a signer's check of what it made.
// Errors name the library. For pe/'s own files only.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_PE_RSANUMBERS_H
#define WEFT_PE_RSANUMBERS_H

#include "support/Digest.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace weft::pe::detail {

/// OpenSSL's bound on moduli (OPENSSL_RSA_MAX_MODULUS_BITS); libgcrypt's is its memory's and
/// takes this one, so that both builds take the same keys. No number of a usable key is longer.
constexpr size_t MaxModulusBits = 16384;

/// A number as the library holds it, freed (and wiped, for a private one) when this goes.
class BigNumber {
public:
  BigNumber() = default;
  explicit BigNumber(void *Handle) : Handle(Handle) {}
  BigNumber(BigNumber &&Other) noexcept : Handle(std::exchange(Other.Handle, nullptr)) {}
  BigNumber &operator=(BigNumber &&Other) noexcept {
    std::swap(Handle, Other.Handle);
    return *this;
  }
  BigNumber(const BigNumber &) = delete;
  BigNumber &operator=(const BigNumber &) = delete;
  ~BigNumber();

  void *handle() const { return Handle; }
  explicit operator bool() const { return Handle != nullptr; }

private:
  void *Handle = nullptr;
};

/// A key's numbers; the private and CRT ones are empty when not given.
struct KeyNumbers {
  BigNumber N, E, D, P, Q, DP, DQ, QInv;
};

/// \p BigEndian (at most MaxModulusBits long) as a number; \p Private ones take the library's
/// constant-time paths where it has them.
llvm::Expected<BigNumber> numberFrom(llvm::ArrayRef<uint8_t> BigEndian, bool Private);
/// \p A times \p B, reduced modulo \p Modulus when there is one.
llvm::Expected<BigNumber> product(const BigNumber &A, const BigNumber &B, const BigNumber *Modulus);
/// \p A minus \p Small.
llvm::Expected<BigNumber> difference(const BigNumber &A, unsigned Small);
/// Below zero, zero or above zero as \p A is below, equal to or above \p B.
int compare(const BigNumber &A, const BigNumber &B);
bool isOdd(const BigNumber &A);

/// The PKCS #1 v1.5 signature of \p Digest (made by \p Kind) under the key pair \p K (its CRT
/// parts used when it has them), as long as the modulus.
llvm::Expected<std::vector<uint8_t>> signPkcs1(const KeyNumbers &K, DigestKind Kind,
                                               llvm::ArrayRef<uint8_t> Digest);
/// Whether \p Signature is that of \p Digest under the public numbers of \p K.
bool verifyPkcs1(const KeyNumbers &K, DigestKind Kind, llvm::ArrayRef<uint8_t> Digest,
                 llvm::ArrayRef<uint8_t> Signature);

} // namespace weft::pe::detail

#endif
