//===- pe/Rsa.cpp - RSA signatures (PKCS #1 v1.5) -------------------------===//
//
// The numbers of a key and the checks of a key pair; the arithmetic and the padding are the
// linked library's (pe/RsaNumbers.h).
//
//===----------------------------------------------------------------------===//
#include "pe/Rsa.h"

#include "pe/RsaNumbers.h"
#include "support/Error.h"

#include <algorithm>
#include <tuple>

using namespace llvm;

namespace weft::pe {

namespace {

using detail::BigNumber;
using detail::KeyNumbers;

Expected<BigNumber> toNumber(ArrayRef<uint8_t> BigEndian, bool Private) {
  if (BigEndian.size() > detail::MaxModulusBits / 8)
    return plainError("a key number of " + Twine(BigEndian.size()) + " bytes is longer than " +
                      Twine(detail::MaxModulusBits) + " bits");
  return detail::numberFrom(BigEndian, Private);
}

Error crtPartsAllOrNone(const RsaPrivateKey &Key) {
  ArrayRef<uint8_t> Parts[] = {Key.Prime1, Key.Prime2, Key.Exponent1, Key.Exponent2,
                               Key.Coefficient};
  auto Given = std::count_if(std::begin(Parts), std::end(Parts),
                             [](ArrayRef<uint8_t> P) { return !P.empty(); });
  if (Given != 0 && Given != 5)
    return plainError("the key gives " + Twine(Given) +
                      " of the five CRT numbers; all or none of them make sense");
  return Error::success();
}

// The numbers of a public key, or of a key pair when \p Private is given.
Expected<KeyNumbers> numbersOf(const RsaPublicKey &Public, const RsaPrivateKey *Private) {
  KeyNumbers K;
  std::vector<std::tuple<BigNumber *, ArrayRef<uint8_t>, bool>> Parts = {
      {&K.N, Public.Modulus, false}, {&K.E, Public.Exponent, false}};
  if (Private) {
    if (Error E = crtPartsAllOrNone(*Private))
      return std::move(E);
    Parts.push_back({&K.D, Private->PrivateExponent, true});
    if (!Private->Prime1.empty())
      Parts.insert(Parts.end(), {{&K.P, Private->Prime1, true},
                                 {&K.Q, Private->Prime2, true},
                                 {&K.DP, Private->Exponent1, true},
                                 {&K.DQ, Private->Exponent2, true},
                                 {&K.QInv, Private->Coefficient, true}});
  }
  for (auto &[To, From, IsPrivate] : Parts) {
    Expected<BigNumber> B = toNumber(From, IsPrivate);
    if (!B)
      return B.takeError();
    *To = std::move(*B);
  }
  return std::move(K);
}

// The relations between the CRT parts, the modulus and the exponents. Neither library checks
// them when it signs (OpenSSL quietly recomputes a CRT result it finds wrong with d), so without
// this a key whose primes are not the modulus's would still be taken. They run once per key.
Error checkCrtParts(const KeyNumbers &K) {
  const uint8_t OneByte = 1;
  Expected<BigNumber> One = detail::numberFrom(OneByte, false);
  if (!One)
    return One.takeError();
  auto OddAboveOne = [&](const BigNumber &X) {
    return detail::isOdd(X) && detail::compare(X, *One) != 0;
  };
  if (!OddAboveOne(K.P) || !OddAboveOne(K.Q))
    return plainError("the primes are not odd numbers above 1");
  Expected<BigNumber> PMinus1 = detail::difference(K.P, 1);
  if (!PMinus1)
    return PMinus1.takeError();
  Expected<BigNumber> QMinus1 = detail::difference(K.Q, 1);
  if (!QMinus1)
    return QMinus1.takeError();
  struct Relation {
    const BigNumber *A, *B, *Modulus; // A * B, reduced modulo Modulus when there is one
    const BigNumber *Want;
    const char *Otherwise;
  } Relations[] = {
      {&K.P, &K.Q, nullptr, &K.N, "the primes do not multiply to the modulus"},
      {&K.D, &*One, &*PMinus1, &K.DP, "the first CRT exponent is not d mod p-1"},
      {&K.D, &*One, &*QMinus1, &K.DQ, "the second CRT exponent is not d mod q-1"},
      {&K.E, &K.DP, &*PMinus1, &*One,
       "the private exponent does not invert the public exponent modulo p-1"},
      {&K.E, &K.DQ, &*QMinus1, &*One,
       "the private exponent does not invert the public exponent modulo q-1"},
      {&K.QInv, &K.Q, &K.P, &*One, "the coefficient is not the inverse of q modulo p"},
  };
  for (const Relation &R : Relations) {
    Expected<BigNumber> T = detail::product(*R.A, *R.B, R.Modulus);
    if (!T)
      return T.takeError();
    if (detail::compare(*T, *R.Want) != 0)
      return plainError(R.Otherwise);
  }
  return Error::success();
}

// The numbers of a key pair, its CRT parts checked when it has them.
Expected<KeyNumbers> checkedNumbers(const RsaPrivateKey &Key) {
  Expected<KeyNumbers> K = numbersOf(Key.Public, &Key);
  if (K && K->P)
    if (Error E = checkCrtParts(*K))
      return std::move(E);
  return K;
}

} // namespace

Error checkRsaKey(const RsaPrivateKey &Key) {
  Expected<KeyNumbers> K = checkedNumbers(Key);
  return K ? Error::success() : K.takeError();
}

Expected<std::vector<uint8_t>> rsaSignPkcs1(const RsaPrivateKey &Key, DigestKind Kind,
                                            ArrayRef<uint8_t> Digest) {
  Expected<KeyNumbers> K = checkedNumbers(Key);
  if (!K)
    return K.takeError();
  Expected<std::vector<uint8_t>> Signature = detail::signPkcs1(*K, Kind, Digest);
  if (!Signature)
    return Signature.takeError();
  // A signer checks what it made: for a key without CRT parts nothing else shows that d
  // belongs to the modulus.
  if (!rsaVerifyPkcs1(Key.Public, Kind, Digest, *Signature))
    return plainError("the key makes signatures its public half does not verify (the private "
                      "exponent does not belong to the modulus)");
  return Signature;
}

bool rsaVerifyPkcs1(const RsaPublicKey &Key, DigestKind Kind, ArrayRef<uint8_t> Digest,
                    ArrayRef<uint8_t> Signature) {
  Expected<KeyNumbers> K = numbersOf(Key, nullptr);
  if (!K) {
    consumeError(K.takeError());
    return false;
  }
  return detail::verifyPkcs1(*K, Kind, Digest, Signature);
}

} // namespace weft::pe
