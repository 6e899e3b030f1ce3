//===- tests/package/TestingPlatformTest.cpp - Coverage on Microsoft.Testing.Platform -===//
//
// tests/dotnet-test/mtp: the same tests written for the MSTest SDK, xunit.v3 and TUnit, test
// applications on Microsoft.Testing.Platform 2, run by `dotnet test` in its
// Microsoft.Testing.Platform mode (the folder's global.json) with the Weft package's extension
// (registered by the package, nothing written in the projects) and with coverlet.MTP 10.1.0 on the
// same project, each with its defaults (which leave out what carries GeneratedCode or
// CompilerGenerated): every line's hits and every branch outcome equal. The solution's three test
// applications share one report. The test application's own options (--weft-coverage...), run by
// itself; and every run that cannot report says why and fails: filters that leave out everything
// (WEFT0012), no test run (WEFT0013), a threshold not met (WEFT0008), a report that cannot be
// written (WEFT0004), options that make no sense.
//
//===----------------------------------------------------------------------===//
#include "tests/support/DotnetSample.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>
#include <memory>

using namespace llvm;
using namespace weft;

namespace {

bool contains(StringRef Text, StringRef Part) { return Text.contains(Part); }

std::unique_ptr<test::DotnetSample> sample(StringRef Name) {
  return std::make_unique<test::DotnetSample>("tests/dotnet-test", ("mtp-" + Name).str(),
                                              WEFT_PACKAGE_VERSION);
}

/// `dotnet test ARGS` in the sample's mtp/ folder (Microsoft.Testing.Platform mode).
test::CommandResult mtpTest(const test::DotnetSample &S, std::vector<std::string> Args) {
  Args.insert(Args.begin(), "test");
  return S.dotnet(Args, "mtp");
}

/// `dotnet test` with coverlet.MTP on the same projects: its options on the command line (with
/// no configuration file, so that its defaults, which weft's extension takes, apply), restricted
/// to the library as weft measures it (the project references).
std::vector<std::string> withCoverletMtp(std::vector<std::string> Args) {
  for (const char *A : {"-p:CoverletMTP=true", "--coverlet", "--coverlet-include", "[Calc]*",
                        "--coverlet-output-format", "json"})
    Args.push_back(A);
  return Args;
}

class Framework : public ::testing::TestWithParam<const char *> {};

TEST_P(Framework, CountsAsCoverletMtpDoes) {
  std::string Name = GetParam();
  auto S = sample(Name);
  std::string Project = "Calc." + Name + "/Calc." + Name + ".csproj";
  std::string Weft = S->root() + "/weft", Coverlet = S->root() + "/coverlet";
  test::CommandResult R = mtpTest(*S, {"--project", Project, "-p:WeftCoverage=true",
                                       "-p:WeftCoverageFormat=lcov", "--results-directory", Weft});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  // dotnet test lists the report with the run's files.
  EXPECT_TRUE(contains(R.Out, "file artifacts produced:")) << R.Out;
  EXPECT_TRUE(contains(R.Out, "- " + Weft + "/coverage.info\n")) << R.Out;
  R = mtpTest(*S, withCoverletMtp({"--project", Project, "--results-directory", Coverlet}));
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  test::CoverageFigures ByDotnetTest = test::weftLcovFile(Weft + "/coverage.info");
  test::expectSameAsCoverlet(ByDotnetTest, test::coverletJsonFiles(Coverlet), Name);
  // The assemblies under test are the compiler's again.
  std::string Bin = S->path("artifacts/bin/Calc." + Name + "/debug/");
  EXPECT_FALSE(contains(test::run(test::weftTool(), {"dump", Bin + "Calc.dll"}).Out, "<weft>"));

  // The test application run by itself, with its own options: the same report.
  std::string Direct = S->root() + "/direct/";
  R = test::run("dotnet",
                {Bin + "Calc." + Name + ".dll", "--weft-coverage", "--weft-coverage-output-format",
                 "lcov", "--weft-coverage-output", Direct},
                {}, 300);
  ASSERT_EQ(R.ExitCode, 0) << R.Out << R.Err;
  EXPECT_TRUE(contains(R.Out, "weft: coverage report: " + Direct + "coverage.info (lines "))
      << R.Out;
  test::CoverageFigures ByItself = test::weftLcovFile(Direct + "coverage.info");
  EXPECT_TRUE(ByItself.Lines == ByDotnetTest.Lines && ByItself.Branches == ByDotnetTest.Branches)
      << test::coverageDifferences(ByItself, ByDotnetTest);
}

INSTANTIATE_TEST_SUITE_P(TestingPlatform, Framework,
                         ::testing::Values("MSTest", "XunitV3", "TUnit"));

TEST(TestingPlatform, SolutionsTestApplicationsShareOneReport) {
  auto S = sample("solution");
  std::string Weft = S->root() + "/weft", Coverlet = S->root() + "/coverlet";
  test::CommandResult R = mtpTest(*S, {"--solution", "Mtp.slnx", "-p:WeftCoverage=true",
                                       "-p:WeftCoverageFormat=lcov", "--results-directory", Weft});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  R = mtpTest(*S, withCoverletMtp({"--solution", "Mtp.slnx", "--results-directory", Coverlet}));
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  // coverlet.MTP writes each test application's report (its name has the time in it): added up.
  test::expectSameAsCoverlet(test::weftLcovFile(Weft + "/coverage.info"),
                             test::coverletJsonFiles(Coverlet), "three test applications");
}

TEST(TestingPlatform, TestApplicationsOwnOptionsAndFailures) {
  auto S = sample("options");
  test::CommandResult R =
      mtpTest(*S, {"--project", "Calc.MSTest/Calc.MSTest.csproj", "-p:WeftCoverage=true",
                   "-p:WeftThreshold=100", "--results-directory", S->root() + "/threshold"});
  // Through dotnet test: a threshold not met fails the run, saying which figure.
  EXPECT_NE(R.ExitCode, 0);
  EXPECT_TRUE(contains(R.Out, "error WEFT0008: line coverage of module 'Calc' is ")) << R.Out;
  EXPECT_TRUE(sys::fs::exists(S->root() + "/threshold/coverage.cobertura.xml"));

  // The test application run by itself, with its own options.
  std::string App = S->path("artifacts/bin/Calc.MSTest/debug/Calc.MSTest.dll");
  std::string Calc = S->path("artifacts/bin/Calc.MSTest/debug/Calc.dll");
  auto Run = [&](std::vector<std::string> Args) {
    Args.insert(Args.begin(), App);
    test::CommandResult C = test::run("dotnet", Args, {}, 300);
    C.Out += C.Err;
    return C;
  };
  auto Woven = [&] { return contains(test::run(test::weftTool(), {"dump", Calc}).Out, "<weft>"); };
  std::string Direct = S->root() + "/direct/";
  R = Run({"--weft-coverage", "--weft-coverage-output-format", "lcov", "--weft-coverage-output",
           Direct, "--weft-coverage-exclude-by-file", "**/Waiting.cs"});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  EXPECT_TRUE(contains(R.Out, "weft: coverage report: " + Direct + "coverage.info (lines "))
      << R.Out;
  std::string Lcov = test::readFile(Direct + "coverage.info");
  EXPECT_TRUE(contains(Lcov, "Arithmetic.cs")) << Lcov;
  EXPECT_FALSE(contains(Lcov, "Waiting.cs")) << Lcov;
  // coverlet.MTP's default: generated code is left out, the getter whose lambda the compiler
  // made stays; an explicit list replaces the default.
  EXPECT_FALSE(contains(Lcov, "Calc.Generated::Twice")) << Lcov;
  EXPECT_FALSE(contains(Lcov, "<get_Shifted>")) << Lcov;
  EXPECT_TRUE(contains(Lcov, "Calc.Tally::get_Shifted()")) << Lcov;
  EXPECT_FALSE(Woven());
  R = Run({"--weft-coverage", "--weft-coverage-output-format", "lcov", "--weft-coverage-output",
           Direct, "--weft-coverage-exclude-by-attribute", "ObsoleteAttribute"});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  Lcov = test::readFile(Direct + "coverage.info");
  EXPECT_TRUE(contains(Lcov, "Calc.Generated::Twice")) << Lcov;
  EXPECT_TRUE(contains(Lcov, "Calc.Tally::get_Shifted()")) << Lcov;

  // Filters that leave out every method: nothing measured, and the tests do not run.
  R = Run({"--weft-coverage", "--weft-coverage-exclude", "[Calc]*"});
  EXPECT_EQ(R.ExitCode, 1) << R.Out;
  EXPECT_TRUE(contains(R.Out, "weft: error WEFT0012: nothing was measured: the filters leave out "
                              "every method of Calc"))
      << R.Out;
  EXPECT_FALSE(Woven());
  // No test runs: no hits.
  R = Run({"--weft-coverage", "--filter", "Name=NoSuchTest", "--ignore-exit-code", "8"});
  EXPECT_EQ(R.ExitCode, 1) << R.Out;
  EXPECT_TRUE(contains(R.Out, "weft: error WEFT0013: the tests wrote no hits: Calc.MSTest.dll"))
      << R.Out;
  EXPECT_FALSE(Woven());
  // A report that cannot be written.
  ASSERT_TRUE(test::writeFile(S->root() + "/a-file", "not a folder\n"));
  R = Run({"--weft-coverage", "--weft-coverage-output", S->root() + "/a-file/coverage.xml"});
  EXPECT_EQ(R.ExitCode, 1) << R.Out;
  EXPECT_TRUE(contains(R.Out, S->root() + "/a-file/coverage.xml: error WEFT0004: ")) << R.Out;
  EXPECT_FALSE(Woven());
  // Options that make no sense are the command line's errors (exit code 5).
  R = Run({"--weft-coverage", "--weft-coverage-output-format", "xml"});
  EXPECT_EQ(R.ExitCode, 5) << R.Out;
  EXPECT_TRUE(contains(R.Out, "--weft-coverage-output-format: 'xml' is none of cobertura, lcov, "
                              "opencover, json"))
      << R.Out;
  R = Run({"--weft-coverage-include-test-assembly"});
  EXPECT_EQ(R.ExitCode, 5) << R.Out;
  EXPECT_TRUE(contains(R.Out, "--weft-coverage-include-test-assembly has no effect without "
                              "--weft-coverage"))
      << R.Out;
}

} // namespace
