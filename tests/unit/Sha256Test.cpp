//===- tests/unit/Sha256Test.cpp - SHA-256 of images and files ------------===//
//
// pe/Sha256.h against the known answers of FIPS 180-2 (appendix B), and a file read in pieces
// against the same bytes hashed at once: a file of several pieces, one that ends on a piece's
// boundary, and an empty one.
//
//===----------------------------------------------------------------------===//
#include "pe/Sha256.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace llvm;
using namespace weft::pe;

namespace {

std::string hashOf(StringRef Text) { return sha256Hex(arrayRefFromStringRef(Text)); }

/// The SHA-256 of a temporary file holding \p Bytes, read through fileSha256Hex.
std::string fileHashOf(const std::vector<uint8_t> &Bytes) {
  SmallString<128> Path;
  int FD = -1;
  EXPECT_FALSE(sys::fs::createTemporaryFile("weft-sha256", "bin", FD, Path));
  {
    raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS.write(reinterpret_cast<const char *>(Bytes.data()), Bytes.size());
  }
  Expected<std::string> Hex = fileSha256Hex(Path);
  sys::fs::remove(Path);
  if (!Hex) {
    ADD_FAILURE() << toString(Hex.takeError());
    return "";
  }
  return *Hex;
}

TEST(Sha256, KnownAnswers) {
  EXPECT_EQ(hashOf(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(hashOf("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hashOf("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(hashOf(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, AFileReadInPiecesHashesAsItsBytes) {
  // Sizes around the reader's pieces (64 KiB) and SHA-256's blocks (64 bytes).
  for (size_t Size : {size_t(0), size_t(1), size_t(64 << 10), size_t((64 << 10) + 1),
                      size_t(3 * (64 << 10) - 64), size_t(1 << 20) + 55}) {
    std::vector<uint8_t> Bytes(Size);
    for (size_t I = 0; I < Size; ++I)
      Bytes[I] = uint8_t(I * 131 + (I >> 9));
    EXPECT_EQ(fileHashOf(Bytes), sha256Hex(Bytes)) << Size << " bytes";
  }
}

TEST(Sha256, AMissingFileIsAnErrorNamingIt) {
  Expected<std::string> Hex = fileSha256Hex("/nonexistent/weft-sha256-input.dll");
  ASSERT_FALSE(Hex);
  EXPECT_NE(toString(Hex.takeError()).find("weft-sha256-input.dll"), std::string::npos);
}

} // namespace
