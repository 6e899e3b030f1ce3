//===- pe/RsaOpenSsl.cpp - RSA's numbers through OpenSSL's libcrypto ------===//
//
// pe/RsaNumbers.h with OpenSSL: its private-key operation does not branch on the key's bits, and
// it uses the Chinese remainder theorem when the key carries its primes.
//
//===----------------------------------------------------------------------===//
#include "pe/RsaNumbers.h"
#include "support/Error.h"

#include <memory>
// The RSA key is made with the API OpenSSL 1.1 and 3 share (3 keeps it, deprecated): the
// package's Linux build links Debian 11's OpenSSL 1.1, the development build the system's 3.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

using namespace llvm;

namespace weft::pe::detail {

namespace {

static_assert(MaxModulusBits == OPENSSL_RSA_MAX_MODULUS_BITS);

// Every OpenSSL object is owned by a unique_ptr, so that it is freed on every path.
template <typename T, void (*Free)(T *)> struct Freer {
  void operator()(T *P) const { Free(P); }
};
template <typename T, void (*Free)(T *)> using Owned = std::unique_ptr<T, Freer<T, Free>>;
using BignumContext = Owned<BN_CTX, BN_CTX_free>;
using RsaKey = Owned<RSA, RSA_free>;
using Pkey = Owned<EVP_PKEY, EVP_PKEY_free>;
using PkeyContext = Owned<EVP_PKEY_CTX, EVP_PKEY_CTX_free>;

const BIGNUM *bn(const BigNumber &B) { return static_cast<const BIGNUM *>(B.handle()); }

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

// A copy of \p B that the key being made takes over (empty stays null), private numbers still
// on the constant-time paths.
BIGNUM *copyForKey(const BigNumber &B) {
  BIGNUM *Copy = B ? BN_dup(bn(B)) : nullptr;
  if (Copy && BN_get_flags(bn(B), BN_FLG_CONSTTIME))
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

BigNumber::~BigNumber() { BN_clear_free(static_cast<BIGNUM *>(Handle)); } // wiped

Expected<BigNumber> numberFrom(ArrayRef<uint8_t> BigEndian, bool Private) {
  BIGNUM *B = BN_bin2bn(BigEndian.data(), int(BigEndian.size()), nullptr);
  if (!B)
    return openSslError("cannot hold a key number");
  // Private numbers take the constant-time paths of OpenSSL's division and exponentiation.
  if (Private)
    BN_set_flags(B, BN_FLG_CONSTTIME);
  return BigNumber(B);
}

Expected<BigNumber> product(const BigNumber &A, const BigNumber &B, const BigNumber *Modulus) {
  BignumContext Ctx(BN_CTX_new());
  BigNumber T(BN_new());
  BIGNUM *To = static_cast<BIGNUM *>(T.handle());
  if (!Ctx || !To ||
      !(Modulus ? BN_mod_mul(To, bn(A), bn(B), bn(*Modulus), Ctx.get())
                : BN_mul(To, bn(A), bn(B), Ctx.get())))
    return openSslError("cannot check the key");
  return std::move(T);
}

Expected<BigNumber> difference(const BigNumber &A, unsigned Small) {
  BigNumber T(copyForKey(A));
  if (!T || !BN_sub_word(static_cast<BIGNUM *>(T.handle()), Small))
    return openSslError("cannot check the key");
  return std::move(T);
}

int compare(const BigNumber &A, const BigNumber &B) { return BN_cmp(bn(A), bn(B)); }

bool isOdd(const BigNumber &A) { return BN_is_odd(bn(A)); }

Expected<std::vector<uint8_t>> signPkcs1(const KeyNumbers &K, DigestKind Kind,
                                         ArrayRef<uint8_t> Digest) {
  Expected<Pkey> P = toPkey(K);
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
  return std::move(Signature);
}

bool verifyPkcs1(const KeyNumbers &K, DigestKind Kind, ArrayRef<uint8_t> Digest,
                 ArrayRef<uint8_t> Signature) {
  Expected<Pkey> P = toPkey(K);
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

} // namespace weft::pe::detail
