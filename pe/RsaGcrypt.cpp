//===- pe/RsaGcrypt.cpp - RSA signatures through libgcrypt ----------------===//
//
// pe/Rsa.h where there is no OpenSSL (the win-x64 build, with Debian's libgcrypt for MinGW):
// the same checks of a key, the same signatures (PKCS #1 v1.5 is deterministic), messages that
// name libgcrypt where Rsa.cpp's name OpenSSL. libgcrypt's CRT wants u = p^-1 mod q where PKCS #1
// gives q^-1 mod p: the primes go to it in the other order.
//
//===----------------------------------------------------------------------===//
#include "pe/Rsa.h"
#include "support/Error.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <gcrypt.h>
#include <memory>
#include <mutex>
#include <tuple>

using namespace llvm;

namespace weft::pe {

namespace {

/// libgcrypt's bound on moduli is its memory's; OpenSSL's (Rsa.cpp) is kept, so that both
/// builds take the same keys.
constexpr size_t MaxModulusBits = 16384;

template <typename T, void (*Free)(T)> struct Freer {
  void operator()(std::remove_pointer_t<T> *P) const { Free(P); }
};
template <typename T, void (*Free)(T)>
using Owned = std::unique_ptr<std::remove_pointer_t<T>, Freer<T, Free>>;
using Mpi = Owned<gcry_mpi_t, gcry_mpi_release>;
using Sexp = Owned<gcry_sexp_t, gcry_sexp_release>;

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

struct KeyNumbers {
  Mpi N, E, D, P, Q, DP, DQ, QInv;
};

Expected<Mpi> toMpi(ArrayRef<uint8_t> BigEndian) {
  if (BigEndian.size() > MaxModulusBits / 8)
    return plainError("a key number of " + Twine(BigEndian.size()) + " bytes is longer than " +
                      Twine(MaxModulusBits) + " bits");
  if (BigEndian.empty())
    return Mpi(gcry_mpi_set_ui(nullptr, 0));
  gcry_mpi_t M = nullptr;
  if (gcry_error_t E =
          gcry_mpi_scan(&M, GCRYMPI_FMT_USG, BigEndian.data(), BigEndian.size(), nullptr))
    return gcryptError("cannot hold a key number", E);
  return Mpi(M);
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

Expected<KeyNumbers> numbersOf(const RsaPublicKey &Public, const RsaPrivateKey *Private) {
  initialize();
  KeyNumbers K;
  std::vector<std::tuple<Mpi *, ArrayRef<uint8_t>>> Parts = {{&K.N, Public.Modulus},
                                                             {&K.E, Public.Exponent}};
  if (Private) {
    if (Error E = crtPartsAllOrNone(*Private))
      return std::move(E);
    Parts.push_back({&K.D, Private->PrivateExponent});
    if (!Private->Prime1.empty())
      Parts.insert(Parts.end(), {{&K.P, Private->Prime1},
                                 {&K.Q, Private->Prime2},
                                 {&K.DP, Private->Exponent1},
                                 {&K.DQ, Private->Exponent2},
                                 {&K.QInv, Private->Coefficient}});
  }
  for (auto &[To, From] : Parts) {
    Expected<Mpi> M = toMpi(From);
    if (!M)
      return M.takeError();
    *To = std::move(*M);
  }
  return std::move(K);
}

bool isOddAboveOne(gcry_mpi_t M) { return gcry_mpi_test_bit(M, 0) && gcry_mpi_cmp_ui(M, 1) != 0; }

// As Rsa.cpp: the relations between the CRT parts, the modulus and the exponents.
Error checkCrtParts(const KeyNumbers &K) {
  if (!isOddAboveOne(K.P.get()) || !isOddAboveOne(K.Q.get()))
    return plainError("the primes are not odd numbers above 1");
  Mpi T(gcry_mpi_new(0)), PMinus1(gcry_mpi_copy(K.P.get())), QMinus1(gcry_mpi_copy(K.Q.get())),
      One(gcry_mpi_set_ui(nullptr, 1));
  gcry_mpi_sub_ui(PMinus1.get(), PMinus1.get(), 1);
  gcry_mpi_sub_ui(QMinus1.get(), QMinus1.get(), 1);
  struct Relation {
    gcry_mpi_t A, B, Modulus; // A * B, reduced modulo Modulus when there is one
    gcry_mpi_t Want;
    const char *Otherwise;
  } Relations[] = {
      {K.P.get(), K.Q.get(), nullptr, K.N.get(), "the primes do not multiply to the modulus"},
      {K.D.get(), One.get(), PMinus1.get(), K.DP.get(), "the first CRT exponent is not d mod p-1"},
      {K.D.get(), One.get(), QMinus1.get(), K.DQ.get(), "the second CRT exponent is not d mod q-1"},
      {K.E.get(), K.DP.get(), PMinus1.get(), One.get(),
       "the private exponent does not invert the public exponent modulo p-1"},
      {K.E.get(), K.DQ.get(), QMinus1.get(), One.get(),
       "the private exponent does not invert the public exponent modulo q-1"},
      {K.QInv.get(), K.Q.get(), K.P.get(), One.get(),
       "the coefficient is not the inverse of q modulo p"},
  };
  for (const Relation &R : Relations) {
    if (R.Modulus)
      gcry_mpi_mulm(T.get(), R.A, R.B, R.Modulus);
    else
      gcry_mpi_mul(T.get(), R.A, R.B);
    if (gcry_mpi_cmp(T.get(), R.Want) != 0)
      return plainError(R.Otherwise);
  }
  return Error::success();
}

Expected<KeyNumbers> checkedNumbers(const RsaPrivateKey &Key) {
  Expected<KeyNumbers> K = numbersOf(Key.Public, &Key);
  if (K && K->P)
    if (Error E = checkCrtParts(*K))
      return std::move(E);
  return K;
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

size_t modulusBytes(const KeyNumbers &K) { return (gcry_mpi_get_nbits(K.N.get()) + 7) / 8; }

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
  gcry_sexp_t Private = nullptr;
  gcry_error_t Built =
      K->P ? gcry_sexp_build(
                 &Private, nullptr, "(private-key (rsa (n %m) (e %m) (d %m) (p %m) (q %m) (u %m)))",
                 K->N.get(), K->E.get(), K->D.get(), K->Q.get(), K->P.get(), K->QInv.get())
           : gcry_sexp_build(&Private, nullptr, "(private-key (rsa (n %m) (e %m) (d %m)))",
                             K->N.get(), K->E.get(), K->D.get());
  if (Built)
    return gcryptError("the numbers do not make an RSA key", Built);
  Sexp PrivateKey(Private);
  Expected<Sexp> Data = dataOf(Kind, Digest);
  if (!Data)
    return Data.takeError();
  gcry_sexp_t Signed = nullptr;
  if (gcry_error_t E = gcry_pk_sign(&Signed, Data->get(), PrivateKey.get()))
    return gcryptError("cannot sign with the key", E);
  Sexp SignedValue(Signed);
  Sexp S(gcry_sexp_find_token(SignedValue.get(), "s", 0));
  Mpi Value(S ? gcry_sexp_nth_mpi(S.get(), 1, GCRYMPI_FMT_USG) : nullptr);
  if (!Value)
    return plainError("cannot sign with the key (libgcrypt gave no signature)");
  // As long as the modulus, big-endian: libgcrypt leaves out leading zeros.
  size_t Size = modulusBytes(*K), Written = 0;
  std::vector<uint8_t> Signature(Size);
  if (gcry_error_t E = gcry_mpi_print(GCRYMPI_FMT_USG, Signature.data(), Signature.size(), &Written,
                                      Value.get()))
    return gcryptError("cannot sign with the key", E);
  std::rotate(Signature.begin(), Signature.begin() + Written, Signature.end());
  std::fill(Signature.begin(), Signature.end() - Written, 0);
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
  // OpenSSL takes only a signature as long as the modulus: so does this.
  if (Signature.size() != modulusBytes(*K))
    return false;
  Expected<Mpi> S = toMpi(Signature);
  if (!S) {
    consumeError(S.takeError());
    return false;
  }
  if (gcry_mpi_cmp(S->get(), K->N.get()) >= 0)
    return false;
  Expected<Sexp> Data = dataOf(Kind, Digest);
  if (!Data) {
    consumeError(Data.takeError());
    return false;
  }
  gcry_sexp_t Public = nullptr, SignatureValue = nullptr;
  if (gcry_sexp_build(&Public, nullptr, "(public-key (rsa (n %m) (e %m)))", K->N.get(), K->E.get()))
    return false;
  Sexp PublicKey(Public);
  if (gcry_sexp_build(&SignatureValue, nullptr, "(sig-val (rsa (s %m)))", S->get()))
    return false;
  Sexp SignatureSexp(SignatureValue);
  return gcry_pk_verify(SignatureSexp.get(), Data->get(), PublicKey.get()) == 0;
}

} // namespace weft::pe
