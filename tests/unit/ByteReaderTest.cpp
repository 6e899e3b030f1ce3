//===- tests/unit/ByteReaderTest.cpp --------------------------------------===//
#include "support/ByteReader.h"

#include "support/Error.h"
#include "support/Format.h"

#include <gtest/gtest.h>

using namespace weft;

namespace {

uint32_t decodeU(std::vector<uint8_t> Bytes, bool *Ok = nullptr) {
  ByteReader R(Bytes);
  uint32_t V = R.compressed();
  if (Ok)
    *Ok = R.ok() && R.atEnd();
  return V;
}

int32_t decodeS(std::vector<uint8_t> Bytes) {
  ByteReader R(Bytes);
  int32_t V = R.compressedSigned();
  EXPECT_TRUE(R.ok());
  EXPECT_TRUE(R.atEnd());
  return V;
}

// The examples of ECMA-335 II.23.2.
TEST(ByteReader, CompressedUnsignedIntegers) {
  EXPECT_EQ(decodeU({0x03}), 0x03u);
  EXPECT_EQ(decodeU({0x7F}), 0x7Fu);
  EXPECT_EQ(decodeU({0x80, 0x80}), 0x80u);
  EXPECT_EQ(decodeU({0xAE, 0x57}), 0x2E57u);
  EXPECT_EQ(decodeU({0xBF, 0xFF}), 0x3FFFu);
  EXPECT_EQ(decodeU({0xC0, 0x00, 0x40, 0x00}), 0x4000u);
  EXPECT_EQ(decodeU({0xDF, 0xFF, 0xFF, 0xFF}), 0x1FFFFFFFu);
}

TEST(ByteReader, CompressedSignedIntegers) {
  EXPECT_EQ(decodeS({0x06}), 3);
  EXPECT_EQ(decodeS({0x7B}), -3);
  EXPECT_EQ(decodeS({0x80, 0x80}), 64);
  EXPECT_EQ(decodeS({0x01}), -64);
  EXPECT_EQ(decodeS({0xC0, 0x00, 0x40, 0x00}), 8192);
  EXPECT_EQ(decodeS({0x80, 0x01}), -8192);
  EXPECT_EQ(decodeS({0xDF, 0xFF, 0xFF, 0xFE}), 268435455);
  EXPECT_EQ(decodeS({0xC0, 0x00, 0x00, 0x01}), -268435456);
}

TEST(ByteReader, MalformedAndTruncatedCompressedIntegers) {
  bool Ok = true;
  decodeU({0xE0}, &Ok);
  EXPECT_FALSE(Ok);
  decodeU({0xFF, 0, 0, 0}, &Ok);
  EXPECT_FALSE(Ok);
  decodeU({0x80}, &Ok);
  EXPECT_FALSE(Ok);
  decodeU({0xC0, 0x00, 0x01}, &Ok);
  EXPECT_FALSE(Ok);
  decodeU({}, &Ok);
  EXPECT_FALSE(Ok);
}

TEST(ByteReader, FailureIsStickyAndNamesStructureAndOffset) {
  std::vector<uint8_t> Bytes{1, 2, 3};
  ByteReader R(Bytes, /*FileOffset=*/0x100);
  EXPECT_EQ(R.u16(), 0x0201u);
  EXPECT_EQ(R.u32(), 0u); // only one byte left
  EXPECT_FALSE(R.ok());
  EXPECT_EQ(R.u8(), 0u); // still failed, even though a byte is left
  EXPECT_EQ(R.failureOffset(), 0x102u);
  llvm::Error E = R.takeError("test header");
  ASSERT_TRUE(bool(E));
  EXPECT_EQ(llvm::toString(std::move(E)), "test header at offset 0x102: unexpected end of data");
}

TEST(ByteReader, CountsAreCheckedAgainstTheBytesLeft) {
  std::vector<uint8_t> Bytes{0x05, 1, 2, 3, 4};
  ByteReader R(Bytes);
  EXPECT_EQ(R.count(1), 0u) << "five elements of one byte do not fit in four";
  EXPECT_FALSE(R.ok());
  ByteReader R2(Bytes);
  EXPECT_EQ(R2.count(0), 5u) << "element size 0 means no check";
  std::vector<uint8_t> Huge{0xDF, 0xFF, 0xFF, 0xFF};
  ByteReader R3(Huge);
  EXPECT_EQ(R3.count(4), 0u);
  EXPECT_FALSE(R3.ok());
}

TEST(ByteReader, NulTerminatedStrings) {
  std::vector<uint8_t> Bytes{'a', 'b', 0, 'c'};
  ByteReader R(Bytes);
  EXPECT_EQ(R.cstring(), "ab");
  EXPECT_EQ(R.pos(), 3u);
  EXPECT_EQ(R.cstring(), "");
  EXPECT_FALSE(R.ok()) << "'c' has no terminator";
}

TEST(ByteReader, AlignAndSeek) {
  std::vector<uint8_t> Bytes(16, 0);
  ByteReader R(Bytes);
  R.skip(5);
  R.align(4);
  EXPECT_EQ(R.pos(), 8u);
  R.align(4);
  EXPECT_EQ(R.pos(), 8u);
  R.seek(16);
  EXPECT_TRUE(R.ok());
  EXPECT_TRUE(R.atEnd());
  R.seek(17);
  EXPECT_FALSE(R.ok());
}

TEST(Format, HexStringPadsZeroCorrectly) {
  EXPECT_EQ(hexstr(0, false, 4), "0000");
  EXPECT_EQ(hexstr(0), "0");
  EXPECT_EQ(hexstr(0xAB, true, 4), "00ab");
  EXPECT_EQ(hexstr(0x12345, false, 4), "12345");
  EXPECT_EQ(hexstr(~0ull), "FFFFFFFFFFFFFFFF");
}

} // namespace
