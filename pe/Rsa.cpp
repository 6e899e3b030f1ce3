//===- pe/Rsa.cpp - RSA signatures through OpenSSL ------------------------===//
#include "pe/Rsa.h"

#include "support/Error.h"

#include <algorithm>
#include <memory>
// The RSA key is made with the API OpenSSL 1.1 and 3 share (3 keeps it, deprecated): the
// package's Linux build links Debian 11's OpenSSL 1.1, the development build the system's 3.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <tuple>

using namespace llvm;

namespace weft::pe {

namespace {

// Every OpenSSL object is owned by a unique_ptr, so that it is freed on every path.
template <typename T, void (*Free)(T *)> struct Freer {
  void operator()(T *P) const { Free(P); }
};
template <typename T, void (*Free)(T *)> using Owned = std::unique_ptr<T, Freer<T, Free>>;
using Bignum = Owned<BIGNUM, BN_clear_free>; // wiped: some hold private numbers
using BignumContext = Owned<BN_CTX, BN_CTX_free>;
using RsaKey = Owned<RSA, RSA_free>;
using Pkey = Owned<EVP_PKEY, EVP_PKEY_free>;
using PkeyContext = Owned<EVP_PKEY_CTX, EVP_PKEY_CTX_free>;

// What failed, with the first reason OpenSSL queued. The queue is emptied so that its reasons
// do not turn up in a later, unrelated failure on this thread.
Error openSslError(const Twine &What) {
  unsigned long Code = ERR_peek_error();
  const char *Reason = Code ? ERR_reason_error_string(Code) : nullptr;
  std::string Message = What.str();
  if (Reason)
    Message += std::string(" (OpenSSL: ") + Reason + ")";
  ERR_clear_error();
  return plainError(Message);
}

// A key's numbers as OpenSSL holds them; the private and CRT ones are null when not given.
struct KeyNumbers {
  Bignum N, E, D, P, Q, DP, DQ, QInv;
};

Expected<Bignum> toBignum(ArrayRef<uint8_t> BigEndian, bool Private) {
  // OpenSSL's own bound on moduli; no number of a usable key is longer.
  if (BigEndian.size() > OPENSSL_RSA_MAX_MODULUS_BITS / 8)
    return plainError("a key number of " + Twine(BigEndian.size()) + " bytes is longer than " +
                      Twine(OPENSSL_RSA_MAX_MODULUS_BITS) + " bits");
  Bignum B(BN_bin2bn(BigEndian.data(), int(BigEndian.size()), nullptr));
  if (!B)
    return openSslError("cannot hold a key number");
  // Private numbers take the constant-time paths of OpenSSL's division and exponentiation.
  if (Private)
    BN_set_flags(B.get(), BN_FLG_CONSTTIME);
  return std::move(B);
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
  std::vector<std::tuple<Bignum *, ArrayRef<uint8_t>, bool>> Parts = {
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
    Expected<Bignum> B = toBignum(From, IsPrivate);
    if (!B)
      return B.takeError();
    *To = std::move(*B);
  }
  return std::move(K);
}

bool isOddAboveOne(const BIGNUM *B) { return BN_is_odd(B) && !BN_is_one(B); }

// The relations between the CRT parts, the modulus and the exponents. OpenSSL does not check
// them when it signs: a CRT result it finds wrong it quietly recomputes with d, so without this
// a key whose primes are not the modulus's would still be taken. The checks run once per key.
Error checkCrtParts(const KeyNumbers &K) {
  if (!isOddAboveOne(K.P.get()) || !isOddAboveOne(K.Q.get()))
    return plainError("the primes are not odd numbers above 1");
  BignumContext Ctx(BN_CTX_new());
  Bignum T(BN_new()), PMinus1(BN_dup(K.P.get())), QMinus1(BN_dup(K.Q.get()));
  if (!Ctx || !T || !PMinus1 || !QMinus1 || !BN_sub_word(PMinus1.get(), 1) ||
      !BN_sub_word(QMinus1.get(), 1))
    return openSslError("cannot check the key");
  const BIGNUM *One = BN_value_one();
  struct Relation {
    const BIGNUM *A, *B, *Modulus; // A * B, reduced modulo Modulus when there is one
    const BIGNUM *Want;
    const char *Otherwise;
  } Relations[] = {
      {K.P.get(), K.Q.get(), nullptr, K.N.get(), "the primes do not multiply to the modulus"},
      {K.D.get(), One, PMinus1.get(), K.DP.get(), "the first CRT exponent is not d mod p-1"},
      {K.D.get(), One, QMinus1.get(), K.DQ.get(), "the second CRT exponent is not d mod q-1"},
      {K.E.get(), K.DP.get(), PMinus1.get(), One,
       "the private exponent does not invert the public exponent modulo p-1"},
      {K.E.get(), K.DQ.get(), QMinus1.get(), One,
       "the private exponent does not invert the public exponent modulo q-1"},
      {K.QInv.get(), K.Q.get(), K.P.get(), One, "the coefficient is not the inverse of q modulo p"},
  };
  for (const Relation &R : Relations) {
    int Done = R.Modulus ? BN_mod_mul(T.get(), R.A, R.B, R.Modulus, Ctx.get())
                         : BN_mul(T.get(), R.A, R.B, Ctx.get());
    if (!Done)
      return openSslError("cannot check the key");
    if (BN_cmp(T.get(), R.Want) != 0)
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

// A copy of \p B that the key being made takes over (null stays null), private numbers still
// on the constant-time paths.
BIGNUM *copyForKey(const Bignum &B) {
  BIGNUM *Copy = B ? BN_dup(B.get()) : nullptr;
  if (Copy && BN_get_flags(B.get(), BN_FLG_CONSTTIME))
    BN_set_flags(Copy, BN_FLG_CONSTTIME);
  return Copy;
}

Expected<Pkey> toPkey(const KeyNumbers &K) {
  RsaKey R(RSA_new());
  if (!R || !RSA_set0_key(R.get(), copyForKey(K.N), copyForKey(K.E), copyForKey(K.D)))
    return openSslError("the numbers do not make an RSA key");
  if (K.P &&
      (!RSA_set0_factors(R.get(), copyForKey(K.P), copyForKey(K.Q)) ||
       !RSA_set0_crt_params(R.get(), copyForKey(K.DP), copyForKey(K.DQ), copyForKey(K.QInv))))
    return openSslError("the numbers do not make an RSA key");
  Pkey P(EVP_PKEY_new());
  if (!P || !EVP_PKEY_assign_RSA(P.get(), R.get()))
    return openSslError("the numbers do not make an RSA key");
  R.release(); // the EVP_PKEY owns it now
  return std::move(P);
}

// A context for signing or verifying with \p Key: PKCS #1 v1.5 padding around a DigestInfo
// naming \p Kind. \p Init is EVP_PKEY_sign_init or EVP_PKEY_verify_init.
PkeyContext paddingContext(EVP_PKEY *Key, DigestKind Kind, int (*Init)(EVP_PKEY_CTX *)) {
  PkeyContext C(EVP_PKEY_CTX_new(Key, nullptr));
  const EVP_MD *Md = Kind == DigestKind::SHA1 ? EVP_sha1() : EVP_sha256();
  if (!C || Init(C.get()) <= 0 || EVP_PKEY_CTX_set_rsa_padding(C.get(), RSA_PKCS1_PADDING) <= 0 ||
      EVP_PKEY_CTX_set_signature_md(C.get(), Md) <= 0)
    return nullptr;
  return C;
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
  Expected<Pkey> P = toPkey(*K);
  if (!P)
    return P.takeError();
  PkeyContext C = paddingContext(P->get(), Kind, EVP_PKEY_sign_init);
  size_t Size = 0;
  if (!C || EVP_PKEY_sign(C.get(), nullptr, &Size, Digest.data(), Digest.size()) <= 0)
    return openSslError("cannot sign with the key");
  std::vector<uint8_t> Signature(Size);
  if (EVP_PKEY_sign(C.get(), Signature.data(), &Size, Digest.data(), Digest.size()) <= 0)
    return openSslError("cannot sign with the key");
  Signature.resize(Size);
  // A signer checks what it made: for a key without CRT parts nothing else shows that d
  // belongs to the modulus.
  if (!rsaVerifyPkcs1(Key.Public, Kind, Digest, Signature))
    return plainError("the key makes signatures its public half does not verify (the private "
                      "exponent does not belong to the modulus)");
  return std::move(Signature);
}

bool rsaVerifyPkcs1(const RsaPublicKey &Key, DigestKind Kind, ArrayRef<uint8_t> Digest,
                    ArrayRef<uint8_t> Signature) {
  Expected<KeyNumbers> K = numbersOf(Key, nullptr);
  if (!K) {
    consumeError(K.takeError());
    return false;
  }
  Expected<Pkey> P = toPkey(*K);
  if (!P) {
    consumeError(P.takeError());
    return false;
  }
  PkeyContext C = paddingContext(P->get(), Kind, EVP_PKEY_verify_init);
  bool Valid = C && EVP_PKEY_verify(C.get(), Signature.data(), Signature.size(), Digest.data(),
                                    Digest.size()) == 1;
  // A signature that does not verify leaves its reasons queued.
  ERR_clear_error();
  return Valid;
}

} // namespace weft::pe
