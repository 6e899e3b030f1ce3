//===- pe/Sha256.cpp - SHA-256 of whole images ----------------------------===//
#include "pe/Sha256.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"

#include <memory>
#include <openssl/evp.h>
#include <optional>
#include <vector>

using namespace llvm;

namespace weft::pe {

namespace {

struct ContextFree {
  void operator()(EVP_MD_CTX *C) const { EVP_MD_CTX_free(C); }
};
using Context = std::unique_ptr<EVP_MD_CTX, ContextFree>;

/// A SHA-256 under way; false from each step once one failed (OpenSSL out of memory).
class Hasher {
public:
  Hasher() : C(EVP_MD_CTX_new()) { Ok = C && EVP_DigestInit_ex(C.get(), EVP_sha256(), nullptr); }
  bool update(ArrayRef<uint8_t> Bytes) {
    Ok = Ok && EVP_DigestUpdate(C.get(), Bytes.data(), Bytes.size());
    return Ok;
  }
  std::optional<std::string> finalHex() {
    unsigned char Digest[EVP_MAX_MD_SIZE];
    unsigned Size = 0;
    if (!Ok || !EVP_DigestFinal_ex(C.get(), Digest, &Size))
      return std::nullopt;
    return toHex(ArrayRef<uint8_t>(Digest, Size), /*LowerCase=*/true);
  }

private:
  Context C;
  bool Ok = false;
};

Error hashFailed(StringRef What) {
  return createStringError(inconvertibleErrorCode(),
                           "cannot compute the SHA-256 of " + What + " (OpenSSL)");
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
