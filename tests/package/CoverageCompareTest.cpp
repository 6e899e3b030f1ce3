//===- tests/package/CoverageCompareTest.cpp - weft's coverage against coverlet's -===//
//
// tests/coverage-compare runs C# and F# corpus programs, and the branch patterns beside it (each
// pattern weft once counted otherwise, run both ways and one way only), from xunit tests. `dotnet
// test` measures them once with coverlet.msbuild 10.0.1 (-p:CollectCoverage=true) and once with
// the Weft package that package/pack.sh made (-p:WeftCoverage=true), each writing its JSON,
// Cobertura and LCOV reports: every line has the same hits, every branch outcome (file, line,
// branch offset, path) the same hits, and the totals agree, but for the differences listed below,
// each with its reason; and the reports hold them alike: the same classes of each document, the
// same methods of each class in the same order, each with the same lines and outcomes, each
// Cobertura line showing the same outcomes, each LCOV record the same functions and figures.
//
//===----------------------------------------------------------------------===//
#include "tests/support/CoverageFigures.h"
#include "tests/support/CoverageStructure.h"
#include "tests/support/Env.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace llvm;
using namespace weft;

namespace {

/// The totals an LCOV report states (LF, LH, BRF, BRH added up over its records).
std::map<std::string, uint64_t> lcovTotals(StringRef Lcov) {
  std::map<std::string, uint64_t> T;
  SmallVector<StringRef, 0> Records;
  Lcov.split(Records, '\n');
  for (StringRef R : Records) {
    auto [Key, Value] = R.trim().split(':');
    uint64_t N = 0;
    if ((Key == "LF" || Key == "LH" || Key == "BRF" || Key == "BRH") && !Value.getAsInteger(10, N))
      T[Key.str()] += N;
  }
  return T;
}

/// The outcomes of \p Lines (file suffix, line) taken in \p F.
uint64_t coveredOn(const test::CoverageFigures &F,
                   const std::set<std::pair<std::string, unsigned>> &Lines) {
  uint64_t N = 0;
  for (const auto &[K, Hits] : F.Branches)
    for (const auto &[Suffix, Line] : Lines)
      N += Hits != 0 && std::get<1>(K) == Line && StringRef(std::get<0>(K)).endswith(Suffix);
  return N;
}

TEST(CoverageCompare, CorpusLinesAndBranchesAsCoverletCountsThem) {
  std::string Root = test::scratchDir("coverage-compare");
  SmallString<256> Project(test::sourceDir());
  sys::path::append(Project, "tests", "coverage-compare", "CoverageCompare.csproj");
  auto DotnetTest = [&](std::vector<std::string> More) {
    std::vector<std::string> Args = {
        "test", std::string(Project), "-nologo", "-p:ArtifactsPath=" + Root + "/artifacts",
        // The PDBs name the sources where they are (coverlet
        // measures no assembly whose sources it cannot find).
        "-p:PathMap=", "--results-directory", Root + "/results"};
    std::vector<std::string> Restore = test::packageRestoreArgs(WEFT_PACKAGE_VERSION);
    Args.insert(Args.end(), Restore.begin(), Restore.end());
    Args.insert(Args.end(), More.begin(), More.end());
    // Time for the test host to exit and write its hits, as docs/msbuild.md advises.
    test::CommandResult R =
        test::run("dotnet", Args, {"VSTEST_TESTHOST_SHUTDOWN_TIMEOUT=60000"}, 900);
    R.Out += R.Err;
    return R;
  };
  const char *Formats = "json%2Ccobertura%2Clcov";
  test::CommandResult R =
      DotnetTest({"-p:WeftCoverage=true", std::string("-p:WeftCoverageFormat=") + Formats,
                  "-p:WeftCoverageReport=" + Root + "/weft/"});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  R = DotnetTest({"-p:CollectCoverage=true", std::string("-p:CoverletOutputFormat=") + Formats,
                  "-p:CoverletOutput=" + Root + "/coverlet/"});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;

  auto Read = [&](StringRef Tool, StringRef File) {
    std::string Text = test::readFile((Root + "/" + Tool + "/" + File).str());
    EXPECT_FALSE(Text.empty()) << Tool << "/" << File;
    return Text;
  };
  std::string Lcov = Read("weft", "coverage.info");
  test::CoverageFigures Weft, Coverlet;
  test::addCoverletJson(Weft, Read("weft", "coverage.json"));
  test::addCoverletJson(Coverlet, Read("coverlet", "coverage.json"));
  // Both measured the programs, C# and F#.
  auto Measured = [&](StringRef Folder) {
    unsigned Lines = 0, Branches = 0;
    for (const auto &[K, H] : Coverlet.Lines)
      Lines += StringRef(K.first).contains(Folder);
    for (const auto &[K, H] : Coverlet.Branches)
      Branches += StringRef(std::get<0>(K)).contains(Folder);
    EXPECT_GT(Lines, 20u) << Folder;
    EXPECT_GT(Branches, 4u) << Folder;
    return Branches;
  };
  for (StringRef Program : {"Switches", "Closures", "AsyncAwait", "Iterators", "Exceptions",
                            "Linq", "FSharpPatterns", "FSharpComputations"})
    Measured(("/corpus/" + Program + "/").str());
  // BranchPatterns' files are compiled twice (BranchPatternsOptimized): both add to their lines.
  EXPECT_GT(Measured("/coverage-compare/BranchPatterns/"), 300u);
  EXPECT_GT(Measured("/coverage-compare/FSharpBranchPatterns/"), 40u);

  // Where weft cannot count as coverlet does (docs/passes.md, "Branches as coverlet counts
  // them"): file (its end) and line.
  // (None in these programs: a string switch's dispatch on the length and the characters, whose
  // no-match arms coverlet counts on the jumps alone, agrees too.)
  std::set<std::pair<std::string, unsigned>> Known = {};

  // Where the program's own timing picks the way: taskCatch awaits a Task.Run that throws, and
  // the task's state machine goes on at once when the task has already failed by the time it
  // looks, else later on a pool thread: its branches' outcomes differ between two runs of the
  // same program, whoever counts them (its lines' hits do not).
  std::set<std::pair<std::string, unsigned>> Unsettled = {
      {"FSharpComputations/Program.fs", 81}, {"FSharpComputations/Program.fs", 82},
      {"FSharpComputations/Program.fs", 83}, {"FSharpComputations/Program.fs", 84}};

  std::string Differences = test::coverageDifferences(Weft, Coverlet, Known, Unsettled);
  EXPECT_TRUE(Differences.empty()) << Differences;

  // Where the reports hold each line and outcome: the same classes, methods, lines and outcomes
  // in JSON, Cobertura and LCOV alike.
  test::CoverageStructure WeftHolds, CoverletHolds;
  for (auto [Tool, Holds] :
       {std::pair{"weft", &WeftHolds}, std::pair{"coverlet", &CoverletHolds}}) {
    test::addJsonStructure(*Holds, Read(Tool, "coverage.json"));
    test::addCoberturaStructure(*Holds, Read(Tool, "coverage.cobertura.xml"), Unsettled);
    test::addLcovStructure(*Holds, Read(Tool, "coverage.info"), Unsettled);
  }
  EXPECT_GT(CoverletHolds.Places.size(), 200u);
  std::string Elsewhere = test::structureDifferences(WeftHolds, CoverletHolds);
  EXPECT_TRUE(Elsewhere.empty()) << Elsewhere;

  // The LCOV report's totals are those of its JSON report's lines and outcomes, and its outcomes
  // are coverlet's, module by module (BranchPatterns' files are in two).
  std::map<std::string, uint64_t> T = lcovTotals(Lcov);
  EXPECT_EQ(T["LF"], Weft.LineRecords);
  EXPECT_EQ(T["LH"], Weft.LineRecordsCovered);
  EXPECT_EQ(T["BRF"], Weft.BranchRecords);
  EXPECT_EQ(T["BRH"], Weft.BranchRecordsCovered);
  EXPECT_EQ(Weft.BranchRecords, Coverlet.BranchRecords);
  // Those taken, but for the unsettled lines' (each in one module), which either tool may take.
  EXPECT_EQ(Weft.BranchRecordsCovered - coveredOn(Weft, Unsettled),
            Coverlet.BranchRecordsCovered - coveredOn(Coverlet, Unsettled));
  outs() << "weft: " << Weft.Lines.size() << " lines (" << Weft.linesCovered() << " covered), "
         << Weft.Branches.size() << " branch outcomes (" << Weft.branchesCovered()
         << " covered); coverlet: " << Coverlet.Lines.size() << " lines ("
         << Coverlet.linesCovered() << "), " << Coverlet.Branches.size() << " outcomes ("
         << Coverlet.branchesCovered() << "); module by module: weft " << Weft.BranchRecords
         << " outcomes (" << Weft.BranchRecordsCovered << "), coverlet " << Coverlet.BranchRecords
         << " (" << Coverlet.BranchRecordsCovered << ")\n";
}

} // namespace
