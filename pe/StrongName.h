//===- pe/StrongName.h - Strong-name keys and signatures --------*- C++ -*-===//
//
// A strong-name signature is an RSA signature (PKCS #1 v1.5) of a digest of the image with three
// things left out: the optional header's CheckSum, the certificate table directory entry and the
// signature's own bytes. The digest covers the headers up to the end of the section table, then
// the raw data of every section in turn. The signature is stored little-endian in the slot the CLI
// header names; its size is the modulus size.
//
// Keys come from a key file (.snk), which holds a CryptoAPI PRIVATEKEYBLOB: an 8-byte header
// (type 7, version 2, algorithm), "RSA2", the bit length and public exponent, then the modulus,
// the primes, the CRT exponents and coefficient and the private exponent, little-endian. The
// assembly holds the public half as a PublicKeyBlob: signature and hash algorithm ids, a length,
// then a PUBLICKEYBLOB (type 6, "RSA1").
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_PE_STRONGNAME_H
#define WEFT_PE_STRONGNAME_H

#include "pe/Rsa.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace weft::pe {

struct SignatureSlot;

enum : uint32_t {
  CalgRsaSign = 0x2400,
  CalgSha1 = 0x8004,
  CalgSha256 = 0x800C,
};

/// The public key of an assembly (its Assembly row's PublicKey blob).
struct AssemblyPublicKey {
  uint32_t SignatureAlgorithm = 0, HashAlgorithm = 0;
  RsaPublicKey Key;
};

/// Reads an assembly's PublicKey blob. The ECMA standard key (16 bytes naming no key) is refused:
/// it stands for a key only the runtime's own builders hold.
llvm::Expected<AssemblyPublicKey> parseAssemblyPublicKey(llvm::ArrayRef<uint8_t> Blob);

/// The public key token of a PublicKey blob: the last eight bytes of its SHA-1, reversed, as
/// sixteen lower-case hex digits.
std::string publicKeyToken(llvm::ArrayRef<uint8_t> Blob);

class StrongNameKey {
public:
  /// Reads a key file's contents; errors name the key blob structure and offset. A key whose
  /// numbers do not belong together (checkRsaKey) is refused here.
  static llvm::Expected<StrongNameKey> parse(llvm::ArrayRef<uint8_t> Blob);

  /// The PublicKey blob an assembly signed with this key carries (SHA-1 unless \p HashAlgorithm).
  std::vector<uint8_t> publicKeyBlob(uint32_t HashAlgorithm = CalgSha1) const;
  /// Whether \p Public is this key's public half.
  bool matches(const AssemblyPublicKey &Public) const;
  uint32_t signatureSize() const { return uint32_t(Key.Public.Modulus.size()); }
  const RsaPrivateKey &key() const { return Key; }
  /// How messages name the key (its file, say).
  const std::string &name() const { return Name; }
  void setName(std::string N) { Name = std::move(N); }

private:
  RsaPrivateKey Key;
  std::string Name = "the key";
};

/// The strong-name digest of \p File (a PE image) whose signature occupies \p SignatureSize bytes
/// at \p SignatureOffset.
llvm::Expected<std::vector<uint8_t>> strongNameDigest(llvm::ArrayRef<uint8_t> File,
                                                      uint64_t SignatureOffset,
                                                      uint32_t SignatureSize, DigestKind Kind);

/// The digest a hash algorithm id names; SHA-1 for 0 (the default).
llvm::Expected<DigestKind> strongNameDigestKind(uint32_t HashAlgorithm);

/// Signs a built image in place: fills \p Slot with the signature and, when the image carries a
/// PE checksum, recomputes it.
llvm::Error signImage(llvm::MutableArrayRef<uint8_t> File, const SignatureSlot &Slot,
                      const StrongNameKey &Key, uint32_t HashAlgorithm);

/// Whether the strong-name signature of \p File verifies with \p Public.
llvm::Expected<bool> verifyStrongName(llvm::ArrayRef<uint8_t> File, uint64_t SignatureOffset,
                                      uint32_t SignatureSize, const AssemblyPublicKey &Public);

class Image;

enum class StrongNameState {
  Unsigned,  // the strong-name flag is clear
  Valid,     // the signature matches the image and the public key
  Invalid,   // it does not (the image changed after signing, or the slot is bad)
  Unchecked, // the key cannot be checked here (the ECMA standard key, an unknown hash)
};

struct StrongNameCheck {
  StrongNameState State = StrongNameState::Unsigned;
  std::string Why; // for Invalid and Unchecked
};

/// Checks the strong-name signature of \p In against \p PublicKey, the Assembly row's PublicKey
/// blob (empty when it has none).
StrongNameCheck checkStrongName(const Image &In, llvm::ArrayRef<uint8_t> PublicKey);

} // namespace weft::pe

#endif
