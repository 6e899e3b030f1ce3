// The hits of branch outcomes, from the blocks' counters of hand-made maps and hits: arrivals,
// jumps counted when taken (less the arrivals left out, plus the runs added), a jump with a
// counter of its own, and outcomes of two methods with one document, line and ordinal, which
// coverlet counts as one: the method it instruments first keeps it; and the statements a taken
// jump goes past, which do not count it.
#include "coverage/CoverletFormats.h"
#include "coverage/Report.h"

#include "llvm/Support/raw_ostream.h"

#include <string>

#include "gtest/gtest.h"

using namespace llvm;
using namespace weft::coverage;

namespace {

// F (row 3, instrumented first: order 0) has four blocks, [0,3) [3,6) [6,9) [9,12), and a
// counter of its own for a jump (block 4, no IL); G (row 2, order 1) has two.
const char *const Map2 = R"map({
  "format": "weft-coverage-map", "version": 1, "assembly": "A", "mvid": "m",
  "methods": [
    {"token": "0x06000002", "type": "N.T", "name": "G", "signature": "()", "order": 1,
     "counter": 0, "blocks": [{"il": [0, 2], "lines": [[0, 7, 1, 7, 9]]}, {"il": [2, 4]}],
     "branches": [[1, 2, 0, 2, 0, 7]]},
    {"token": "0x06000003", "type": "N.T", "name": "F", "signature": "()", "order": 0,
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
  // Ordinal 2 on line 7 is F's (instrumented first though its row is later), with G's hits.
  EXPECT_FALSE(F.Branches[2].Coincides);
  EXPECT_EQ(F.Branches[2].Hits, 3u + 2);
  EXPECT_TRUE(M.Methods[0].Branches[0].Coincides);
}

TEST(BranchHits, ReportsOneOutcomeOfALineAndOrdinal) {
  Map M = mapWithHits(Hits7);
  std::string Lcov;
  raw_string_ostream OS(Lcov);
  ReportOptions O;
  O.Kind = Format::Lcov;
  writeReport({M}, O, OS);
  OS.flush();
  EXPECT_NE(Lcov.find("BRDA:7,8,0,5\n"), std::string::npos) << Lcov;
  EXPECT_EQ(Lcov.find("BRDA:7,1,0"), std::string::npos) << Lcov; // G's, counted in F's
  EXPECT_NE(Lcov.find("BRF:5\n"), std::string::npos) << Lcov;
}

// `if (x) goto case A;` as a lone `br` (line 6, IL 3) that the taken jump at 2 leads through to
// line 7 (IL 5), where code falls in too: 4 arrivals at the `br`, 3 of them the jump (its own
// counter); coverlet's counter for the jump goes on to line 7, so line 6 counts 1.
const char *const PastMap = R"map({
  "format": "weft-coverage-map", "version": 1, "assembly": "A", "mvid": "m",
  "methods": [
    {"token": "0x06000001", "type": "N.T", "name": "F", "signature": "()", "counter": 0,
     "blocks": [{"il": [0, 3], "lines": [[0, 5, 1, 5, 9]]},
                {"il": [3, 5], "lines": [[0, 6, 1, 6, 9]]},
                {"il": [5, 8], "lines": [[0, 7, 1, 7, 9]]}, {"il": []}],
     "branches": [[2, 5, 1, 1, 0, 5, {"counter": 3}, {"past": [3]}]]}
  ],
  "counters": 4, "documents": ["/src/a.cs"]
})map";

TEST(BranchHits, AJumpGoesPastTheStatementsOfItsBrs) {
  Expected<Map> M = readMap(PastMap);
  ASSERT_TRUE(bool(M)) << toString(M.takeError());
  Expected<Hits> H = readHits("weft-hits 1 m 4 A\n0 10\n1 4\n2 9\n3 3\n");
  ASSERT_TRUE(bool(H)) << toString(H.takeError());
  ASSERT_FALSE(bool(addHits(*M, *H)));
  EXPECT_EQ(M->Methods[0].Branches[0].Hits, 3u);
  EXPECT_EQ(M->Methods[0].Blocks[1].statementHits(), 1u);
  std::vector<ModuleResult> R = coverletResult({*M});
  const MethodResult &F = *R[0].Documents.find("/src/a.cs")->find("N.T")->find("N.T::F()");
  EXPECT_EQ(F.Lines, (std::map<uint32_t, uint64_t>{{5, 10}, {6, 1}, {7, 9}}));
}

} // namespace
