//===- pe/Sha256.cpp - SHA-256 of whole images ----------------------------===//
//
// Reading files in pieces and naming them in errors; the hashing itself is the linked
// library's (pe/Sha256Hasher.h).
//
//===----------------------------------------------------------------------===//
#include "pe/Sha256.h"

#include "pe/Sha256Hasher.h"
#include "support/RegularFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"

#include <vector>

using namespace llvm;

namespace weft::pe {

namespace {

using detail::Sha256Hasher;

Error hashFailed(StringRef Path) {
  return createStringError(inconvertibleErrorCode(), "cannot compute the SHA-256 of '" + Path +
                                                         "' (" + Sha256Hasher::library() + ")");
}

/// The file \p F (named \p Path), read to its end into \p H.
Error readInto(Sha256Hasher &H, sys::fs::file_t F, StringRef Path) {
  std::vector<char> Piece(64 << 10); // resident while the hash runs: kept small
  while (true) {
    Expected<size_t> Read = sys::fs::readNativeFile(F, Piece);
    if (!Read)
      return createFileError(Path, Read.takeError());
    if (*Read == 0)
      return Error::success();
    if (!H.update(arrayRefFromStringRef(StringRef(Piece.data(), *Read))))
      return hashFailed(Path);
  }
}

std::string hex(const std::array<uint8_t, 32> &Digest) {
  return toHex(ArrayRef<uint8_t>(Digest), /*LowerCase=*/true);
}

} // namespace

std::string sha256Hex(ArrayRef<uint8_t> Bytes) {
  Sha256Hasher H;
  H.update(Bytes);
  // The library fails only without memory, where nothing else would go on either.
  std::optional<std::array<uint8_t, 32>> Digest = H.digest();
  return Digest ? hex(*Digest) : std::string();
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
  Sha256Hasher H;
  if (Error Read = readInto(H, F, Path))
    return std::move(Read);
  std::optional<std::array<uint8_t, 32>> Digest = H.digest();
  if (!Digest)
    return hashFailed(Path);
  return hex(*Digest);
}

Expected<std::string> regularFileSha256Hex(StringRef Path) {
  Expected<int> Fd = openRegularFile(Path);
  if (!Fd)
    return Fd.takeError();
  Expected<std::string> Hex = fileSha256Hex(sys::fs::convertFDToNativeFile(*Fd), Path);
  sys::Process::SafelyCloseFileDescriptor(*Fd);
  return Hex;
}

// The hasher fails for good once a step failed: its digest says so at the end.
struct Sha256Stream::State {
  Sha256Hasher H;
};

Sha256Stream::Sha256Stream() : S(std::make_unique<State>()) {}
Sha256Stream::~Sha256Stream() = default;

void Sha256Stream::update(ArrayRef<uint8_t> Bytes) { S->H.update(Bytes); }

std::string Sha256Stream::hex() {
  std::optional<std::array<uint8_t, 32>> D = S->H.digest();
  return D ? toHex(*D, /*LowerCase=*/true) : std::string();
}

} // namespace weft::pe
