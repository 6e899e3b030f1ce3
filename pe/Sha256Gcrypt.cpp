//===- pe/Sha256Gcrypt.cpp - SHA-256 of whole images through libgcrypt ----===//
//
// pe/Sha256.h where there is no OpenSSL (the win-x64 build): libgcrypt, which also uses the
// processor's SHA instructions where it has them.
//
//===----------------------------------------------------------------------===//
#include "pe/Sha256.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"

#include <gcrypt.h>
#include <memory>
#include <optional>
#include <vector>

using namespace llvm;

namespace weft::pe {

namespace {

/// A SHA-256 under way; false from each step once one failed (libgcrypt out of memory).
class Hasher {
public:
  Hasher() {
    static bool Ready = gcry_check_version(nullptr) != nullptr; // once, before first use
    Ok = Ready && gcry_md_open(&H, GCRY_MD_SHA256, 0) == 0;
  }
  Hasher(const Hasher &) = delete;
  Hasher &operator=(const Hasher &) = delete;
  ~Hasher() {
    if (Ok)
      gcry_md_close(H);
  }
  bool update(ArrayRef<uint8_t> Bytes) {
    if (Ok)
      gcry_md_write(H, Bytes.data(), Bytes.size());
    return Ok;
  }
  std::optional<std::string> finalHex() {
    const unsigned char *Digest = Ok ? gcry_md_read(H, GCRY_MD_SHA256) : nullptr;
    if (!Digest)
      return std::nullopt;
    return toHex(ArrayRef<uint8_t>(Digest, gcry_md_get_algo_dlen(GCRY_MD_SHA256)),
                 /*LowerCase=*/true);
  }

private:
  gcry_md_hd_t H = nullptr;
  bool Ok = false;
};

Error hashFailed(StringRef What) {
  return createStringError(inconvertibleErrorCode(),
                           "cannot compute the SHA-256 of " + What + " (libgcrypt)");
}

/// The file \p F (named \p Path), read to its end into \p H.
Error readInto(Hasher &H, sys::fs::file_t F, StringRef Path) {
  std::vector<char> Piece(256 << 10);
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
  // libgcrypt fails only without memory, where nothing else would go on either.
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
