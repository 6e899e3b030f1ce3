// coverage::readMap on maps written by hand: any JSON layout, members it does not know, strings
// with escapes, and damaged maps named by path and offset.
#include "coverage/Report.h"

#include <string>

#include "gtest/gtest.h"

using namespace llvm;
using namespace weft::coverage;

namespace {

// Two methods: three blocks (the second continues the first, lines in document 0) and one
// block; branch points counted when taken: with the arrivals at the fall-through left out, with
// more arrivals left out (and bypassing), with more runs added, and by a counter of its own; three
// of them going past statements.
const char *const Good = R"map({
  "format": "weft-coverage-map", "version": 1,
  "assembly": "A", "mvid": "m", "hits-file": "{assembly}.weft-hits", "pdb": null,
  "methods": [
    {"token": "0x06000001", "type": "N.T", "name": "F", "signature": "(int32)",
     "coverletName": "System.Void N.T::F(System.Int32)",
     "complexity": 3, "order": 7, "counter": 0, "future": {"x": [1, 2.5e3, -1, true, null]},
     "blocks": [{"il": [0, 4], "lines": [[0, 10, 5, 10, 20]]},
                {"il": [4, 9], "continues": true},
                {"il": []}],
     "branches": [[2, 9, 0, 0, 0, 10, 4, {"past": [5]}], [2, 4, 1, 1, 0, 10, [4, 6, 8], 1],
                  [3, 4, 1, 2, 0, 10, 4, 0, [1, 2], {"past": [6, 7]}], [3, 9, 0, 3, 0, 10],
                  [5, 4, 2, 4, 0, 10, {"counter": 2}, 1, {"past": [8]}]]},
    {"token": "0x06000002", "type": "N.T", "name": "G", "signature": "()", "counter": 3,
     "blocks": [{"il": [0, 1]}]}
  ],
  "counters": 4,
  "documents": ["/src/caf\u00e9 \"q\"\\\ud83d\ude00.cs"]
})map";

std::string errorOf(const std::string &Json) {
  Expected<Map> M = readMap(Json);
  if (M)
    return "(read)";
  return toString(M.takeError());
}

TEST(MapReader, ReadsEveryField) {
  Expected<Map> M = readMap(Good);
  ASSERT_TRUE(bool(M)) << toString(M.takeError());
  EXPECT_EQ(M->Assembly, "A");
  EXPECT_EQ(M->Counters, 4u);
  ASSERT_EQ(M->Documents.size(), 1u);
  EXPECT_EQ(M->Documents[0], "/src/caf\xC3\xA9 \"q\"\\\xF0\x9F\x98\x80.cs");
  ASSERT_EQ(M->Methods.size(), 2u);
  const Method &F = M->Methods[0];
  EXPECT_EQ(F.fullName(), "N.T::F(int32)");
  EXPECT_EQ(F.reportName(), "System.Void N.T::F(System.Int32)");
  EXPECT_EQ(M->Methods[1].reportName(), "N.T::G()") << "without coverlet's name, weft's";
  EXPECT_EQ(F.Complexity, 3u);
  ASSERT_EQ(F.Blocks.size(), 3u);
  EXPECT_EQ(F.Blocks[0].IL, std::make_pair(0u, 4u));
  ASSERT_EQ(F.Blocks[0].Lines.size(), 1u);
  EXPECT_EQ(F.Blocks[0].Lines[0].StartLine, 10u);
  EXPECT_EQ(F.Blocks[0].Lines[0].EndColumn, 20u);
  EXPECT_TRUE(F.Blocks[1].Continues);
  EXPECT_FALSE(F.Blocks[2].IL.has_value());
  EXPECT_EQ(F.Order, 7u);
  ASSERT_EQ(F.Branches.size(), 5u);
  EXPECT_TRUE(F.Branches[0].Taken);
  EXPECT_EQ(F.Branches[0].LessArrivals, (std::vector<uint32_t>{4}));
  EXPECT_TRUE(F.Branches[0].MoreRuns.empty());
  EXPECT_FALSE(F.Branches[0].Bypasses);
  EXPECT_EQ(F.Branches[1].LessArrivals, (std::vector<uint32_t>{4, 6, 8}));
  EXPECT_TRUE(F.Branches[1].Bypasses);
  EXPECT_EQ(F.Branches[2].LessArrivals, (std::vector<uint32_t>{4}));
  EXPECT_EQ(F.Branches[2].MoreRuns, (std::vector<uint32_t>{1, 2}));
  EXPECT_FALSE(F.Branches[2].Bypasses);
  EXPECT_FALSE(F.Branches[3].Taken);
  EXPECT_FALSE(F.Branches[0].OwnCounter.has_value());
  EXPECT_TRUE(F.Branches[4].Taken);
  EXPECT_EQ(F.Branches[4].OwnCounter, 2u);
  EXPECT_TRUE(F.Branches[4].Bypasses);
  EXPECT_EQ(F.Branches[0].Past, (std::vector<uint32_t>{5}));
  EXPECT_TRUE(F.Branches[1].Past.empty());
  EXPECT_EQ(F.Branches[2].Past, (std::vector<uint32_t>{6, 7}));
  EXPECT_EQ(F.Branches[4].Past, (std::vector<uint32_t>{8}));
  EXPECT_EQ(M->Methods[1].FirstCounter, 3u);
  EXPECT_FALSE(M->Methods[1].Order.has_value());
}

TEST(MapReader, ReadsTheSameOnOneLine) {
  std::string OneLine;
  for (char C : std::string(Good))
    if (C != '\n')
      OneLine += C;
  Expected<Map> A = readMap(Good), B = readMap(OneLine);
  ASSERT_TRUE(A && B);
  EXPECT_EQ(A->Methods.size(), B->Methods.size());
  EXPECT_EQ(A->Documents, B->Documents);
}

std::string damaged(StringRef From, StringRef To) {
  std::string S = Good;
  size_t At = S.find(From.str());
  EXPECT_NE(At, std::string::npos) << From.str();
  return S.replace(At, From.size(), To.str());
}

TEST(MapReader, NamesWhatIsWrongAndWhere) {
  struct Case {
    std::string Json, Expected;
  } Cases[] = {
      {damaged("[0, 4]", "[0, \"4\"]"),
       "coverage map: methods[0].blocks[0].il[1]: expected an integer from 0 to 2^32-1 (offset"},
      {damaged("[0, 4]", "[0]"), "methods[0].blocks[0].il: expected [start, end] or []"},
      {damaged("[0, 4]", "[0, 4294967296]"), "il[1]: expected an integer from 0 to 2^32-1"},
      {damaged("[0, 4]", "[0, 4.0]"), "il[1]: expected an integer"},
      {damaged("[0, 10, 5, 10, 20]", "[0, 10, 5]"),
       "blocks[0].lines[0]: expected [document, line, column, end line, end column]"},
      {damaged("[[2, 9, 0", "[[\"x\", 9, 0"), "methods[0].branches[0][0]: expected an integer"},
      {damaged("[4, 6, 8]", "[]"), "branches[1][6]: expected the arrivals left out"},
      {damaged("[1, 2]", "[]"), "branches[2][8]: expected the runs added"},
      {damaged("[1, 2]", "3"), "branches[2][8]: expected an array"},
      {damaged("[1, 2], {", "[1, 2], 5, {"), "expected [offset, end offset, path"},
      {damaged("[8]}]", "[8]}, 1]"), "branches[4][9]: expected [offset, end offset, path"},
      {damaged("[6, 7]", "[]"), "branches[2][9].past: expected the statements it goes past"},
      {damaged("{\"counter\": 2}", "{\"counter\": 3}"),
       "methods[0].branches[4]: counter 3 of the method's 3"},
      {damaged("{\"counter\": 2}", "{\"count\": 2}"), "branches[4][6]: no \"counter\""},
      {damaged("\"continues\": true", "\"continues\": 1"), "continues: expected true or false"},
      {damaged("{\"il\": [0, 4], ", "{\"continues\": true, \"il\": [0, 4], "),
       "methods[0].blocks[0]: the first block continues nothing"},
      {damaged("\"counter\": 3", "\"counter\": 2"),
       "methods[1].counter: counter 2 where 3 was expected"},
      {damaged("\"counters\": 4", "\"counters\": 5"), "the methods have 4 blocks, not 5"},
      {damaged("[0, 10, 5, 10, 20]", "[1, 10, 5, 10, 20]"),
       "methods[0].blocks[0].lines[0]: document 1 of 1"},
      {damaged("\"version\": 1", "\"version\": 2"), "version: only version 1 is known"},
      {damaged("weft-coverage-map", "other"), "not a weft coverage map"},
      {damaged("\"mvid\": \"m\",", ""), "no \"mvid\""},
      {damaged("\"methods\": [", "\"methods\": {"), "methods: expected an array (offset"},
      {damaged("\\u00e9", "\\u00g9"), "documents[0]: expected four hex digits after \\u"},
      {damaged("\\u00e9", "\\q"), "an unknown escape"},
      {damaged("\"methods\": [", "\"m\\u0065thods\": {"), "methods: expected an array (offset"},
      {damaged("\"version\": 1", "\"version\": 9223372036854775808"),
       "version: expected an integer"},
      {damaged("\"version\": 1", "\"version\": -9223372036854775808"), "version: only version 1"},
      {damaged("\"version\": 1", "\"version\": -"), "version: expected an integer (offset"},
      {damaged("\"version\": 1", "\"version\": 1e0"), "version: expected an integer"},
      {std::string(Good) + " x", "top level: text after the map's object"},
      {"[]", "not a weft coverage map"},
      {"", "top level: expected an object (offset 0)"},
  };
  for (const Case &C : Cases)
    EXPECT_NE(errorOf(C.Json).find(C.Expected), std::string::npos)
        << "expected '" << C.Expected << "' in: " << errorOf(C.Json);
}

// A member's name may be written with escapes.
TEST(MapReader, ReadsNamesWithEscapes) {
  Expected<Map> M = readMap(damaged("\"counters\": 4", "\"\\u0063ounters\": 4"));
  ASSERT_TRUE(bool(M)) << toString(M.takeError());
  EXPECT_EQ(M->Counters, 4u);
}

// Every prefix of a map is an error, never a crash or a map.
TEST(MapReader, RefusesEveryTruncation) {
  std::string S = Good;
  for (size_t N = 0; N + 1 < S.size(); ++N)
    EXPECT_FALSE(bool(readMap(S.substr(0, N)))) << N;
}

// Values nested deeper than the reader follows are refused, not recursed into.
TEST(MapReader, BoundsTheNestingItSkips) {
  std::string Deep = std::string(100000, '[') + std::string(100000, ']');
  std::string E = errorOf(damaged("\"pdb\": null", "\"pdb\": " + Deep));
  EXPECT_NE(E.find("nested more than 64 deep"), std::string::npos) << E;
  std::string Shallow = std::string(10, '[') + std::string(10, ']');
  EXPECT_EQ(errorOf(damaged("\"pdb\": null", "\"pdb\": " + Shallow)), "(read)");
}

} // namespace
