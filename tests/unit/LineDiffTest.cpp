//===- tests/unit/LineDiffTest.cpp - Edit scripts and hunks ---------------===//
//
// diffLines against a longest-common-subsequence table on random line lists: the script turns
// the first list into the second and is as short as possible. makeHunks against hand-made cases.
//
//===----------------------------------------------------------------------===//
#include "support/LineDiff.h"

#include <gtest/gtest.h>
#include <random>
#include <string>
#include <vector>

using namespace weft;
using llvm::StringRef;

namespace {

std::vector<StringRef> refs(const std::vector<std::string> &Lines) {
  return std::vector<StringRef>(Lines.begin(), Lines.end());
}

size_t lcsLength(const std::vector<std::string> &A, const std::vector<std::string> &B) {
  std::vector<std::vector<size_t>> T(A.size() + 1, std::vector<size_t>(B.size() + 1, 0));
  for (size_t I = A.size(); I-- > 0;)
    for (size_t J = B.size(); J-- > 0;)
      T[I][J] = A[I] == B[J] ? T[I + 1][J + 1] + 1 : std::max(T[I + 1][J], T[I][J + 1]);
  return T[0][0];
}

// Applies the script: the lines it keeps and adds, in order, must be B; those it keeps and
// removes, in order, must be A.
void checkScript(const std::vector<std::string> &A, const std::vector<std::string> &B,
                 const std::vector<LineEdit> &S) {
  std::vector<std::string> FromA, FromB;
  size_t Edits = 0;
  for (const LineEdit &E : S) {
    if (E.Op != LineOp::Added) {
      ASSERT_LT(E.A, A.size());
      FromA.push_back(A[E.A]);
    }
    if (E.Op != LineOp::Removed) {
      ASSERT_LT(E.B, B.size());
      FromB.push_back(B[E.B]);
    }
    if (E.Op == LineOp::Same)
      EXPECT_EQ(A[E.A], B[E.B]);
    else
      ++Edits;
  }
  EXPECT_EQ(FromA, A);
  EXPECT_EQ(FromB, B);
  EXPECT_EQ(Edits, A.size() + B.size() - 2 * lcsLength(A, B)) << "not a shortest script";
}

TEST(LineDiff, RandomListsGetAShortestScript) {
  std::mt19937 Rng(12345);
  for (int Round = 0; Round < 400; ++Round) {
    auto Make = [&](size_t N, unsigned Alphabet) {
      std::vector<std::string> L;
      for (size_t I = 0; I < N; ++I)
        L.push_back("line " + std::to_string(Rng() % Alphabet));
      return L;
    };
    unsigned Alphabet = 2 + Rng() % 6;
    size_t Longest = Round % 20 == 0 ? 400 : 40;
    std::vector<std::string> A = Make(Rng() % Longest, Alphabet),
                             B = Make(Rng() % Longest, Alphabet);
    checkScript(A, B, diffLines(refs(A), refs(B)));
    if (testing::Test::HasFailure())
      return;
  }
}

TEST(LineDiff, EmptyAndEqualLists) {
  std::vector<std::string> None, Some{"a", "b"};
  EXPECT_TRUE(diffLines({}, {}).empty());
  checkScript(None, Some, diffLines({}, refs(Some)));
  checkScript(Some, None, diffLines(refs(Some), {}));
  std::vector<LineEdit> S = diffLines(refs(Some), refs(Some));
  ASSERT_EQ(S.size(), 2u);
  EXPECT_EQ(S[0].Op, LineOp::Same);
}

TEST(LineDiff, RemovalsComeBeforeAdditions) {
  std::vector<std::string> A{"a", "x", "y", "b"}, B{"a", "p", "q", "b"};
  std::vector<LineEdit> S = diffLines(refs(A), refs(B));
  ASSERT_EQ(S.size(), 6u);
  EXPECT_EQ(S[1].Op, LineOp::Removed);
  EXPECT_EQ(S[2].Op, LineOp::Removed);
  EXPECT_EQ(S[3].Op, LineOp::Added);
  EXPECT_EQ(S[4].Op, LineOp::Added);
}

TEST(LineDiff, SplitLinesKeepsALastLineWithoutAnEnd) {
  EXPECT_EQ(splitLines("a\nb\n").size(), 2u);
  EXPECT_EQ(splitLines("a\nb").size(), 2u);
  EXPECT_EQ(splitLines("a\n\nb\n").size(), 3u);
  EXPECT_TRUE(splitLines("").empty());
}

TEST(LineDiff, HunksKeepContextAndSplitAtLongUnchangedRuns) {
  std::vector<std::string> A, B;
  for (int I = 0; I < 30; ++I)
    A.push_back("l" + std::to_string(I));
  B = A;
  B[2] = "changed 2";              // one hunk from line 0 (fewer than 3 lines before)
  B.insert(B.begin() + 20, "new"); // far from the first change: a hunk of its own
  std::vector<LineEdit> S = diffLines(refs(A), refs(B));
  std::vector<Hunk> H = makeHunks(S, 3);
  ASSERT_EQ(H.size(), 2u);
  EXPECT_EQ(H[0].AStart, 0u);
  EXPECT_EQ(H[0].ALines, 6u); // l0..l5
  EXPECT_EQ(H[0].BLines, 6u);
  EXPECT_EQ(H[1].AStart, 17u);
  EXPECT_EQ(H[1].ALines, 6u); // l17..l22
  EXPECT_EQ(H[1].BStart, 17u);
  EXPECT_EQ(H[1].BLines, 7u);
  // Changes 2 * context lines apart or closer share a hunk.
  B = A;
  B[5] = "x";
  B[12] = "y";
  H = makeHunks(diffLines(refs(A), refs(B)), 3);
  EXPECT_EQ(H.size(), 1u);
  B[13] = "z";
  B[12] = A[12];
  H = makeHunks(diffLines(refs(A), refs(B)), 3);
  EXPECT_EQ(H.size(), 2u);
  EXPECT_TRUE(makeHunks(diffLines(refs(A), refs(A)), 3).empty());
}

} // namespace
