//===- pe/RsaGcrypt.cpp - RSA's numbers through libgcrypt -----------------===//
//
// pe/RsaNumbers.h where there is no OpenSSL (the win-x64 build, with Debian's libgcrypt for
// MinGW): the same signatures (PKCS #1 v1.5 is deterministic), messages that name libgcrypt.
// libgcrypt's CRT wants u = p^-1 mod q where PKCS #1 gives q^-1 mod p: the primes go to it in
// the other order.
//
//===----------------------------------------------------------------------===//
#include "pe/RsaNumbers.h"
#include "support/Error.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <gcrypt.h>
#include <memory>
#include <mutex>

using namespace llvm;

namespace weft::pe::detail {

namespace {

template <typename T, void (*Free)(T)> struct Freer {
  void operator()(std::remove_pointer_t<T> *P) const { Free(P); }
};
template <typename T, void (*Free)(T)>
using Owned = std::unique_ptr<std::remove_pointer_t<T>, Freer<T, Free>>;
using Sexp = Owned<gcry_sexp_t, gcry_sexp_release>;

gcry_mpi_t mpi(const BigNumber &B) { return static_cast<gcry_mpi_t>(B.handle()); }

/// What libgcrypt logs: its notes are dropped (the first signature's blinding gathers entropy,
/// and on a Windows without disk statistics, wine's, that prints a note into weft's output);
/// errors go to stderr.
void logHandler(void *, int Level, const char *Format, va_list Args) {
  if (Level >= GCRY_LOG_ERROR)
    std::vfprintf(stderr, Format, Args);
}

/// libgcrypt is made ready once, before its first use (its manual asks for it).
void initialize() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    gcry_set_log_handler(logHandler, nullptr);
    gcry_check_version(nullptr);
    gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
    gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
  });
}

Error gcryptError(const Twine &What, gcry_error_t Code) {
  return plainError(What + " (libgcrypt: " + gcry_strerror(Code) + ")");
}

const char *hashName(DigestKind Kind) { return Kind == DigestKind::SHA1 ? "sha1" : "sha256"; }

/// The digest, in libgcrypt's words for PKCS #1 v1.5 padding around a DigestInfo.
Expected<Sexp> dataOf(DigestKind Kind, ArrayRef<uint8_t> Digest) {
  gcry_sexp_t S = nullptr;
  if (gcry_error_t E = gcry_sexp_build(&S, nullptr, "(data (flags pkcs1) (hash %s %b))",
                                       hashName(Kind), int(Digest.size()), Digest.data()))
    return gcryptError("cannot hold the digest", E);
  return Sexp(S);
}

size_t modulusBytes(const KeyNumbers &K) { return (gcry_mpi_get_nbits(mpi(K.N)) + 7) / 8; }

Expected<Sexp> privateKeyOf(const KeyNumbers &K) {
  gcry_sexp_t Private = nullptr;
  gcry_error_t Built =
      K.P ? gcry_sexp_build(&Private, nullptr,
                            "(private-key (rsa (n %m) (e %m) (d %m) (p %m) (q %m) (u %m)))",
                            mpi(K.N), mpi(K.E), mpi(K.D), mpi(K.Q), mpi(K.P), mpi(K.QInv))
          : gcry_sexp_build(&Private, nullptr, "(private-key (rsa (n %m) (e %m) (d %m)))", mpi(K.N),
                            mpi(K.E), mpi(K.D));
  if (Built)
    return gcryptError("the numbers do not make an RSA key", Built);
  return Sexp(Private);
}

} // namespace

BigNumber::~BigNumber() { gcry_mpi_release(static_cast<gcry_mpi_t>(Handle)); }

Expected<BigNumber> numberFrom(ArrayRef<uint8_t> BigEndian, bool) {
  initialize();
  if (BigEndian.empty())
    return BigNumber(gcry_mpi_set_ui(nullptr, 0));
  gcry_mpi_t M = nullptr;
  if (gcry_error_t E =
          gcry_mpi_scan(&M, GCRYMPI_FMT_USG, BigEndian.data(), BigEndian.size(), nullptr))
    return gcryptError("cannot hold a key number", E);
  return BigNumber(M);
}

Expected<BigNumber> product(const BigNumber &A, const BigNumber &B, const BigNumber *Modulus) {
  BigNumber T(gcry_mpi_new(0));
  if (Modulus)
    gcry_mpi_mulm(mpi(T), mpi(A), mpi(B), mpi(*Modulus));
  else
    gcry_mpi_mul(mpi(T), mpi(A), mpi(B));
  return std::move(T);
}

Expected<BigNumber> difference(const BigNumber &A, unsigned Small) {
  BigNumber T(gcry_mpi_copy(mpi(A)));
  gcry_mpi_sub_ui(mpi(T), mpi(T), Small);
  return std::move(T);
}

int compare(const BigNumber &A, const BigNumber &B) { return gcry_mpi_cmp(mpi(A), mpi(B)); }

bool isOdd(const BigNumber &A) { return gcry_mpi_test_bit(mpi(A), 0); }

Expected<std::vector<uint8_t>> signPkcs1(const KeyNumbers &K, DigestKind Kind,
                                         ArrayRef<uint8_t> Digest) {
  Expected<Sexp> PrivateKey = privateKeyOf(K);
  if (!PrivateKey)
    return PrivateKey.takeError();
  Expected<Sexp> Data = dataOf(Kind, Digest);
  if (!Data)
    return Data.takeError();
  gcry_sexp_t Signed = nullptr;
  if (gcry_error_t E = gcry_pk_sign(&Signed, Data->get(), PrivateKey->get()))
    return gcryptError("cannot sign with the key", E);
  Sexp SignedValue(Signed);
  Sexp S(gcry_sexp_find_token(SignedValue.get(), "s", 0));
  BigNumber Value(S ? gcry_sexp_nth_mpi(S.get(), 1, GCRYMPI_FMT_USG) : nullptr);
  if (!Value)
    return plainError("cannot sign with the key (libgcrypt gave no signature)");
  // As long as the modulus, big-endian: libgcrypt leaves out leading zeros.
  size_t Size = modulusBytes(K), Written = 0;
  std::vector<uint8_t> Signature(Size);
  if (gcry_error_t E =
          gcry_mpi_print(GCRYMPI_FMT_USG, Signature.data(), Signature.size(), &Written, mpi(Value)))
    return gcryptError("cannot sign with the key", E);
  std::rotate(Signature.begin(), Signature.begin() + Written, Signature.end());
  std::fill(Signature.begin(), Signature.end() - Written, 0);
  return std::move(Signature);
}

bool verifyPkcs1(const KeyNumbers &K, DigestKind Kind, ArrayRef<uint8_t> Digest,
                 ArrayRef<uint8_t> Signature) {
  // OpenSSL takes only a signature as long as the modulus: so does this.
  if (Signature.size() != modulusBytes(K))
    return false;
  Expected<BigNumber> S = numberFrom(Signature, false);
  if (!S) {
    consumeError(S.takeError());
    return false;
  }
  if (compare(*S, K.N) >= 0)
    return false;
  Expected<Sexp> Data = dataOf(Kind, Digest);
  if (!Data) {
    consumeError(Data.takeError());
    return false;
  }
  gcry_sexp_t Public = nullptr, SignatureValue = nullptr;
  if (gcry_sexp_build(&Public, nullptr, "(public-key (rsa (n %m) (e %m)))", mpi(K.N), mpi(K.E)))
    return false;
  Sexp PublicKey(Public);
  if (gcry_sexp_build(&SignatureValue, nullptr, "(sig-val (rsa (s %m)))", mpi(*S)))
    return false;
  Sexp SignatureSexp(SignatureValue);
  return gcry_pk_verify(SignatureSexp.get(), Data->get(), PublicKey.get()) == 0;
}

} // namespace weft::pe::detail
