//===- tests/unit/PeChecksumTest.cpp - The PE checksum --------------------===//
//
// pe/Writer.h's peChecksum, which adds eight bytes at a time, against the checksum as the PE
// format describes it (16-bit words added one by one with end-around carry, the checksum field
// counted as zero, the file's size added): random files of every length near the sizes where its
// steps change (eight bytes, 2^18 bytes between folds), the field at an even and an odd offset.
//
//===----------------------------------------------------------------------===//
#include "pe/Writer.h"

#include <gtest/gtest.h>
#include <random>
#include <vector>

using namespace weft::pe;

namespace {

uint32_t wordByWord(const std::vector<uint8_t> &File, uint64_t ChecksumOffset) {
  uint32_t Sum = 0;
  for (size_t I = 0; I < File.size(); I += 2) {
    bool InField = I >= ChecksumOffset && I < ChecksumOffset + 4 && ChecksumOffset % 2 == 0;
    uint32_t Word = InField ? 0 : File[I] | (I + 1 < File.size() ? File[I + 1] << 8 : 0);
    Sum += Word;
    Sum = (Sum & 0xFFFF) + (Sum >> 16);
  }
  return Sum + uint32_t(File.size());
}

TEST(PeChecksum, AgreesWithTheWordByWordSum) {
  std::mt19937 Random(1);
  std::vector<size_t> Sizes = {0, 1, 2, 7, 8, 9, 15, 16, 17, 4096, 4097};
  for (size_t Near : {size_t(1) << 18, size_t(3) << 18})
    for (size_t Size = Near - 9; Size <= Near + 9; ++Size)
      Sizes.push_back(Size);
  for (size_t Size : Sizes) {
    std::vector<uint8_t> File(Size);
    for (uint8_t &B : File)
      B = uint8_t(Random());
    for (uint64_t At : {uint64_t(216), uint64_t(217), uint64_t(Size)})
      EXPECT_EQ(peChecksum(File, At), wordByWord(File, At)) << Size << " bytes, field at " << At;
  }
}

TEST(PeChecksum, AllOnesFoldsAsTheFormatSays) {
  // The largest words everywhere: every fold carries.
  std::vector<uint8_t> File((size_t(1) << 19) + 6, 0xFF);
  EXPECT_EQ(peChecksum(File, 64), wordByWord(File, 64));
}

} // namespace
