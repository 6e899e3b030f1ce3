//===- support/Rsa.cpp - RSA signatures (PKCS #1 v1.5) --------------------===//
#include "support/Rsa.h"

#include "llvm/ADT/StringRef.h"

#include <algorithm>

using namespace llvm;

namespace weft {

namespace {

// Non-negative integers as little-endian 32-bit limbs.
using Limbs = std::vector<uint32_t>;

Limbs fromBigEndian(ArrayRef<uint8_t> B, size_t Count) {
  Limbs L(Count, 0);
  for (size_t I = 0; I < B.size(); ++I) {
    size_t Bit = (B.size() - 1 - I) * 8;
    if (Bit / 32 < Count)
      L[Bit / 32] |= uint32_t(B[I]) << (Bit % 32);
  }
  return L;
}

std::vector<uint8_t> toBigEndian(const Limbs &L, size_t Bytes) {
  std::vector<uint8_t> B(Bytes, 0);
  for (size_t I = 0; I < Bytes && I / 4 < L.size(); ++I)
    B[Bytes - 1 - I] = uint8_t(L[I / 4] >> (I % 4 * 8));
  return B;
}

ArrayRef<uint8_t> stripZeros(ArrayRef<uint8_t> B) {
  while (!B.empty() && B.front() == 0)
    B = B.drop_front();
  return B;
}

// A >= B, both of the same length.
bool notLess(const Limbs &A, const Limbs &B) {
  for (size_t I = A.size(); I-- > 0;)
    if (A[I] != B[I])
      return A[I] > B[I];
  return true;
}

// A -= B, same length, A >= B.
void subtract(Limbs &A, const Limbs &B) {
  uint64_t Borrow = 0;
  for (size_t I = 0; I < A.size(); ++I) {
    uint64_t D = uint64_t(A[I]) - B[I] - Borrow;
    A[I] = uint32_t(D);
    Borrow = (D >> 63) & 1;
  }
}

/// Arithmetic modulo an odd N in Montgomery form, R = 2^(32 * limbs).
class Montgomery {
public:
  explicit Montgomery(Limbs N) : N(std::move(N)) {
    // -N^-1 mod 2^32 by Newton's iteration (each step doubles the correct low bits).
    uint32_t Inv = 1;
    for (int I = 0; I < 5; ++I)
      Inv *= 2 - this->N[0] * Inv;
    NegInv = ~Inv + 1;
    // R^2 mod N by doubling 1 as many times as R^2 has bits.
    size_t K = this->N.size();
    R2.assign(K, 0);
    R2[0] = 1;
    for (size_t I = 0; I < 64 * K; ++I) {
      uint32_t Carry = 0;
      for (uint32_t &W : R2) {
        uint32_t Next = W >> 31;
        W = (W << 1) | Carry;
        Carry = Next;
      }
      if (Carry || notLess(R2, this->N))
        subtract(R2, this->N); // wraps correctly when Carry is set: the result is below N
    }
  }

  // A * B / R mod N (coarsely integrated operand scanning).
  Limbs multiply(const Limbs &A, const Limbs &B) const {
    size_t K = N.size();
    std::vector<uint32_t> T(K + 2, 0);
    for (size_t I = 0; I < K; ++I) {
      uint64_t C = 0;
      for (size_t J = 0; J < K; ++J) {
        uint64_t S = uint64_t(T[J]) + uint64_t(A[J]) * B[I] + C;
        T[J] = uint32_t(S);
        C = S >> 32;
      }
      uint64_t S = uint64_t(T[K]) + C;
      T[K] = uint32_t(S);
      T[K + 1] = uint32_t(S >> 32);
      uint32_t M = T[0] * NegInv;
      C = (uint64_t(T[0]) + uint64_t(M) * N[0]) >> 32;
      for (size_t J = 1; J < K; ++J) {
        S = uint64_t(T[J]) + uint64_t(M) * N[J] + C;
        T[J - 1] = uint32_t(S);
        C = S >> 32;
      }
      S = uint64_t(T[K]) + C;
      T[K - 1] = uint32_t(S);
      T[K] = T[K + 1] + uint32_t(S >> 32);
    }
    Limbs R(T.begin(), T.begin() + K);
    if (T[K] || notLess(R, N))
      subtract(R, N);
    return R;
  }

  // Base^Exp mod N for Base < N; Exp big-endian.
  Limbs power(const Limbs &Base, ArrayRef<uint8_t> Exp) const {
    Limbs One(N.size(), 0);
    One[0] = 1;
    Limbs X = multiply(Base, R2);
    Limbs Acc = multiply(One, R2);
    for (uint8_t Byte : Exp)
      for (int Bit = 7; Bit >= 0; --Bit) {
        Acc = multiply(Acc, Acc);
        if ((Byte >> Bit) & 1)
          Acc = multiply(Acc, X);
      }
    return multiply(Acc, One);
  }

  const Limbs &modulus() const { return N; }

private:
  Limbs N, R2;
  uint32_t NegInv = 0;
};

// The DER prefix of DigestInfo for each digest (RFC 8017, section 9.2, note 1).
ArrayRef<uint8_t> digestInfoPrefix(DigestKind Kind) {
  static const uint8_t Sha1[] = {0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b, 0x0e,
                                 0x03, 0x02, 0x1a, 0x05, 0x00, 0x04, 0x14};
  static const uint8_t Sha256[] = {0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01,
                                   0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20};
  if (Kind == DigestKind::SHA1)
    return Sha1;
  return Sha256;
}

// EMSA-PKCS1-v1_5 encoding of Digest into Length bytes; empty if it does not fit.
std::vector<uint8_t> encodeMessage(DigestKind Kind, ArrayRef<uint8_t> Digest, size_t Length) {
  ArrayRef<uint8_t> Prefix = digestInfoPrefix(Kind);
  size_t T = Prefix.size() + Digest.size();
  if (Length < T + 11)
    return {};
  std::vector<uint8_t> EM(Length, 0xFF);
  EM[0] = 0x00;
  EM[1] = 0x01;
  EM[Length - T - 1] = 0x00;
  std::copy(Prefix.begin(), Prefix.end(), EM.end() - T);
  std::copy(Digest.begin(), Digest.end(), EM.end() - Digest.size());
  return EM;
}

std::optional<Montgomery> arithmeticFor(const RsaPublicKey &Key, size_t &Bytes) {
  ArrayRef<uint8_t> N = stripZeros(Key.Modulus);
  if (N.size() < 64 || !(N.back() & 1))
    return std::nullopt;
  Bytes = N.size();
  return Montgomery(fromBigEndian(N, (N.size() + 3) / 4));
}

} // namespace

std::optional<std::vector<uint8_t>> rsaSignPkcs1(const RsaPrivateKey &Key, DigestKind Kind,
                                                 ArrayRef<uint8_t> Digest) {
  size_t Bytes = 0;
  std::optional<Montgomery> M = arithmeticFor(Key.Public, Bytes);
  if (!M)
    return std::nullopt;
  std::vector<uint8_t> EM = encodeMessage(Kind, Digest, Bytes);
  if (EM.empty())
    return std::nullopt;
  Limbs S = M->power(fromBigEndian(EM, M->modulus().size()), stripZeros(Key.PrivateExponent));
  std::vector<uint8_t> Signature = toBigEndian(S, Bytes);
  // A signer checks what it made: a key whose numbers do not belong together gives a signature
  // that nobody can verify.
  if (!rsaVerifyPkcs1(Key.Public, Kind, Digest, Signature))
    return std::nullopt;
  return Signature;
}

bool rsaVerifyPkcs1(const RsaPublicKey &Key, DigestKind Kind, ArrayRef<uint8_t> Digest,
                    ArrayRef<uint8_t> Signature) {
  size_t Bytes = 0;
  std::optional<Montgomery> M = arithmeticFor(Key, Bytes);
  if (!M || Signature.size() != Bytes)
    return false;
  Limbs S = fromBigEndian(Signature, M->modulus().size());
  if (notLess(S, M->modulus()))
    return false;
  std::vector<uint8_t> EM = encodeMessage(Kind, Digest, Bytes);
  return !EM.empty() && toBigEndian(M->power(S, stripZeros(Key.Exponent)), Bytes) == EM;
}

} // namespace weft
