// The hits of branch outcomes, from the blocks' counters of hand-made maps and hits: arrivals,
// jumps counted when taken (less the arrivals left out, plus the runs added), a jump with a
// counter of its own.
#include "weaver/coverage/Report.h"

#include <string>

#include "gtest/gtest.h"

using namespace llvm;
using namespace weft::coverage;

namespace {

// F has four blocks, [0,3) [3,6) [6,9) [9,12), and a counter of its own for a jump (block 4,
// no IL); G has two.
const char *const Map2 = R"map({
  "format": "weft-coverage-map", "version": 1, "assembly": "A", "mvid": "m",
  "methods": [
    {"token": "0x06000002", "type": "N.T", "name": "G", "signature": "()",
     "counter": 0, "blocks": [{"il": [0, 2], "lines": [[0, 7, 1, 7, 9]]}, {"il": [2, 4]}],
     "branches": [[1, 2, 0, 2, 0, 7]]},
    {"token": "0x06000003", "type": "N.T", "name": "F", "signature": "()",
     "counter": 2,
     "blocks": [{"il": [0, 3], "lines": [[0, 5, 1, 5, 9]]}, {"il": [3, 6]}, {"il": [6, 9]},
                {"il": [9, 12], "lines": [[0, 7, 1, 7, 9]]}, {"il": []}],
     "branches": [[2, 9, 1, 0, 0, 5, 3], [2, 3, 0, 1, 0, 5],
                  [8, 9, 0, 2, 0, 7], [8, 3, 1, 3, 0, 7, [3, 9], 0, [5, 7]],
                  [10, 3, 2, 4, 0, 7, {"counter": 4}]]}
  ],
  "counters": 7, "documents": ["/src/a.cs"]
})map";

const char *const Hits7 = "weft-hits 1 m 7 A\n0 2\n1 2\n2 10\n3 4\n4 6\n5 3\n6 5\n";

Map mapWithHits(StringRef HitsText) {
  Expected<Map> M = readMap(Map2);
  EXPECT_TRUE(bool(M)) << toString(M.takeError());
  Expected<Hits> H = readHits(HitsText);
  EXPECT_TRUE(bool(H)) << toString(H.takeError());
  EXPECT_FALSE(bool(addHits(*M, *H)));
  return std::move(*M);
}

TEST(BranchHits, FromTheBlocksCounters) {
  // G's blocks 2 times; F's 10, 4, 6, 3 times and its jump's own counter 5 times.
  Map M = mapWithHits(Hits7);
  const Method &F = M.Methods[1];
  ASSERT_EQ(F.Branches.size(), 5u);
  EXPECT_EQ(F.Branches[0].Hits, 6u);                 // taken: runs 10, less the 4 arrivals at 3
  EXPECT_EQ(F.Branches[1].Hits, 4u);                 // the arrivals at 3
  EXPECT_EQ(F.Branches[3].Hits, 6u + 4 + 6 - 4 - 3); // runs at 8, 5 and 7 less arrivals at 3, 9
  EXPECT_EQ(F.Branches[4].Hits, 5u);                 // its own counter
}

} // namespace
