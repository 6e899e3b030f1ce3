//===- tests/package/CoverageCompareTest.cpp - weft's coverage against coverlet's -===//
//
// tests/coverage-compare runs C# and F# corpus programs, and the branch patterns beside it (each
// pattern weft once counted otherwise, run both ways and one way only), from xunit tests. `dotnet
// test` measures them once with coverlet.msbuild 10.0.1 (-p:CollectCoverage=true, its JSON report)
// and once with the Weft package that package/pack.sh made (-p:WeftCoverage=true, LCOV): every line
// has the same hits, every branch outcome (file, line, branch offset, path) the same hits, and the
// totals agree, but for the differences listed below, each with its reason.
//
//===----------------------------------------------------------------------===//
#include "tests/support/CoverageFigures.h"
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

TEST(CoverageCompare, CorpusLinesAndBranchesAsCoverletCountsThem) {
  std::string Root = test::scratchDir("coverage-compare");
  SmallString<256> Project(test::sourceDir());
  sys::path::append(Project, "tests", "coverage-compare", "CoverageCompare.csproj");
  auto DotnetTest = [&](std::vector<std::string> More) {
    std::vector<std::string> Args = {
        "test", std::string(Project), "-nologo", "-p:ArtifactsPath=" + Root + "/artifacts",
        // The PDBs name the sources where they are (coverlet
        // measures no assembly whose sources it cannot find).
        "-p:PathMap=",
        "-p:RestoreAdditionalProjectSources=" + test::binaryDir() + "/package-test/nupkg",
        "-p:RestorePackagesPath=" + Root + "/packages", "-p:WeftVersion=" WEFT_PACKAGE_VERSION,
        "--results-directory", Root + "/results"};
    Args.insert(Args.end(), More.begin(), More.end());
    // Time for the test host to exit and write its hits, as docs/msbuild.md advises.
    test::CommandResult R =
        test::run("dotnet", Args, {"VSTEST_TESTHOST_SHUTDOWN_TIMEOUT=60000"}, 900);
    R.Out += R.Err;
    return R;
  };
  test::CommandResult R = DotnetTest({"-p:WeftCoverage=true", "-p:WeftCoverageFormat=lcov",
                                      "-p:WeftCoverageReport=" + Root + "/weft.info"});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  R = DotnetTest({"-p:CollectCoverage=true", "-p:CoverletOutputFormat=json",
                  "-p:CoverletOutput=" + Root + "/coverlet/"});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;

  std::string Lcov = test::readFile(Root + "/weft.info");
  std::string Json = test::readFile(Root + "/coverlet/coverage.json");
  ASSERT_FALSE(Lcov.empty());
  ASSERT_FALSE(Json.empty());
  test::CoverageFigures Weft, Coverlet;
  test::addWeftLcov(Weft, Lcov);
  test::addCoverletJson(Coverlet, Json);
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

  // The report's own totals are those of its lines and outcomes, and its outcomes are
  // coverlet's, module by module (BranchPatterns' files are in two).
  std::map<std::string, uint64_t> T = lcovTotals(Lcov);
  EXPECT_EQ(T["LF"], Weft.LineRecords);
  EXPECT_EQ(T["LH"], Weft.LineRecordsCovered);
  EXPECT_EQ(T["BRF"], Weft.BranchRecords);
  EXPECT_EQ(T["BRH"], Weft.BranchRecordsCovered);
  EXPECT_EQ(Weft.BranchRecords, Coverlet.BranchRecords);
  EXPECT_EQ(Weft.BranchRecordsCovered, Coverlet.BranchRecordsCovered);
  outs() << "weft: " << Weft.Lines.size() << " lines (" << Weft.linesCovered() << " covered), "
         << Weft.Branches.size() << " branch outcomes (" << Weft.branchesCovered()
         << " covered); coverlet: " << Coverlet.Lines.size() << " lines ("
         << Coverlet.linesCovered() << "), " << Coverlet.Branches.size() << " outcomes ("
         << Coverlet.branchesCovered() << "); module by module: weft " << Weft.BranchRecords
         << " outcomes (" << Weft.BranchRecordsCovered << "), coverlet " << Coverlet.BranchRecords
         << " (" << Coverlet.BranchRecordsCovered << ")\n";
}

} // namespace
