//===- tests/unit/ContentIndexTest.cpp - Heap offsets by content ----------===//
#include "support/ContentIndex.h"

#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace weft;

namespace {

/// A heap of NUL-terminated strings, as #Strings is laid out.
struct Heap {
  std::string Bytes{'\0'};
  uint32_t add(const std::string &S) {
    uint32_t Off = uint32_t(Bytes.size());
    Bytes += S;
    Bytes += '\0';
    return Off;
  }
  llvm::ArrayRef<uint8_t> at(uint32_t Off) const {
    return llvm::arrayRefFromStringRef(llvm::StringRef(Bytes.c_str() + Off));
  }
};

llvm::ArrayRef<uint8_t> bytes(const std::string &S) { return llvm::arrayRefFromStringRef(S); }

TEST(ContentIndex, FindsWhatWasInsertedAndNothingElse) {
  Heap H;
  ContentIndex X;
  auto Read = [&](uint32_t Off) { return H.at(Off); };
  EXPECT_EQ(X.find(bytes("absent"), Read), 0u);
  std::vector<std::pair<std::string, uint32_t>> Added;
  for (int I = 0; I < 5000; ++I) { // several rounds of growth
    std::string S = "name" + std::to_string(I * 7919 % 5000);
    uint32_t Off = H.add(S);
    X.insert(Off, bytes(S), Read);
    Added.emplace_back(S, Off);
  }
  EXPECT_EQ(X.size(), 5000u);
  for (const auto &[S, Off] : Added)
    EXPECT_EQ(X.find(bytes(S), Read), Off) << S;
  EXPECT_EQ(X.find(bytes("name5000"), Read), 0u);
  EXPECT_EQ(X.find(bytes("name"), Read), 0u); // a prefix of every entry
}

TEST(ContentIndex, TheFirstOfEqualEntriesStays) {
  Heap H;
  ContentIndex X;
  auto Read = [&](uint32_t Off) { return H.at(Off); };
  uint32_t First = H.add("dup"), Second = H.add("dup");
  X.insert(First, bytes("dup"), Read);
  X.insert(Second, bytes("dup"), Read);
  EXPECT_EQ(X.size(), 1u);
  EXPECT_EQ(X.find(bytes("dup"), Read), First);
}

} // namespace
