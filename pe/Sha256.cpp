//===- pe/Sha256.cpp - SHA-256 of whole images ----------------------------===//
#include "pe/Sha256.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"

// SHA256_Init and its siblings, which OpenSSL 3 deprecates in favour of EVP (see Hasher).
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
#include <optional>
#include <vector>

using namespace llvm;

namespace weft::pe {

namespace {

/// A SHA-256 under way; false from each step once one failed. The SHA256_* functions run the
/// same code (the processor's SHA instructions where it has them) as EVP's digest, without
/// OpenSSL 3's providers: the first EVP fetch in a process loads and initialises them, which
/// added 1.9 MiB to a weave's resident memory (libcrypto's pages and its tables) for one hash.
class Hasher {
public:
  Hasher() { Ok = SHA256_Init(&C) == 1; }
  bool update(ArrayRef<uint8_t> Bytes) {
    Ok = Ok && SHA256_Update(&C, Bytes.data(), Bytes.size()) == 1;
    return Ok;
  }
  std::optional<std::string> finalHex() {
    unsigned char Digest[SHA256_DIGEST_LENGTH];
    if (!Ok || SHA256_Final(Digest, &C) != 1)
      return std::nullopt;
    return toHex(ArrayRef<uint8_t>(Digest), /*LowerCase=*/true);
  }

private:
  SHA256_CTX C;
  bool Ok = false;
};

Error hashFailed(StringRef What) {
  return createStringError(inconvertibleErrorCode(),
                           "cannot compute the SHA-256 of " + What + " (OpenSSL)");
}

/// The file \p F (named \p Path), read to its end into \p H.
Error readInto(Hasher &H, sys::fs::file_t F, StringRef Path) {
  std::vector<char> Piece(64 << 10); // resident while the hash runs: kept small
  while (true) {
    Expected<size_t> Read = sys::fs::readNativeFile(F, Piece);
    if (!Read)
      return createFileError(Path, Read.takeError());
    if (*Read == 0)
      return Error::success();
    if (!H.update(arrayRefFromStringRef(StringRef(Piece.data(), *Read))))
      return hashFailed("'" + Path.str() + "'");
  }
}

} // namespace

std::string sha256Hex(ArrayRef<uint8_t> Bytes) {
  Hasher H;
  H.update(Bytes);
  // OpenSSL fails only without memory, where nothing else would go on either.
  return H.finalHex().value_or(std::string());
}

Expected<std::string> fileSha256Hex(StringRef Path) {
  Expected<sys::fs::file_t> F = sys::fs::openNativeFileForRead(Path);
  if (!F)
    return createFileError(Path, F.takeError());
  Expected<std::string> Hex = fileSha256Hex(*F, Path);
  sys::fs::closeFile(*F);
  return Hex;
}

Expected<std::string> fileSha256Hex(sys::fs::file_t F, StringRef Path) {
  Hasher H;
  if (Error Read = readInto(H, F, Path))
    return std::move(Read);
  std::optional<std::string> Hex = H.finalHex();
  if (!Hex)
    return hashFailed("'" + Path.str() + "'");
  return *Hex;
}

} // namespace weft::pe
