//===- tests/package/DotnetTestTest.cpp - Every form of dotnet test, never silent -===//
//
// tests/dotnet-test (a library, two xunit test projects run by VSTest) under `dotnet test` in the
// forms people type, with the Weft package and with coverlet.msbuild 10.0.1 on the same runs:
// both target frameworks, one (`-f`), `--no-build`, `-c Release`, the solution sharing a results
// folder (xunit and NUnit; one merged report, and each project's when asked), folders given with
// and without their final slash and relative to the project, and the properties set in
// Directory.Build.props with a deterministic build, embedded PDBs, a strong-named library,
// TreatWarningsAsErrors and
// `-warnaserror`. Every report has coverlet's lines and branch outcomes, each hit as often.
//
// And every run says what became of its coverage: where the report is, with its figures; or an
// error naming why there is none: no project to measure (WEFT0007), filters that leave out every
// method (WEFT0012), no hits (WEFT0013), a report that cannot be written (WEFT0004). The same
// for the VSTest data collector (`--collect "XPlat Code Coverage"`).
//
//===----------------------------------------------------------------------===//
#include "tests/support/DotnetSample.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>
#include <memory>

using namespace llvm;
using namespace weft;

namespace {

constexpr const char *Tests = "Calc.Tests/Calc.Tests.csproj";
constexpr const char *MoreTests = "Calc.MoreTests/Calc.MoreTests.csproj";

bool contains(StringRef Text, StringRef Part) { return Text.contains(Part); }

/// Two of weft's reports agree (a form of dotnet test that must give another's report).
void expectSameReport(const test::CoverageFigures &A, const test::CoverageFigures &B,
                      StringRef What) {
  EXPECT_GT(A.Lines.size(), 20u) << What;
  EXPECT_TRUE(A.Error.empty() && B.Error.empty()) << What << ": " << A.Error << B.Error;
  EXPECT_TRUE(A.Lines == B.Lines && A.Branches == B.Branches) << What << ":\n"
                                                              << test::coverageDifferences(A, B);
}

/// Each test has its copy of the sample (the tests run side by side).
class DotnetTest : public ::testing::Test {
protected:
  std::unique_ptr<test::DotnetSample> Sample;
  std::string Key;

  void SetUp() override {
    std::string Name = std::string("dotnet-test-") +
                       ::testing::UnitTest::GetInstance()->current_test_info()->name();
    Sample = std::make_unique<test::DotnetSample>("tests/dotnet-test", Name, WEFT_PACKAGE_VERSION);
    // A key pair for the strong-named library (tests/sn-check makes one as sn -k does).
    Key = Sample->root() + "/calc.snk";
    test::CommandResult R =
        test::run("dotnet", {test::binaryDir() + "/sn-check/bin/SnCheck/debug/SnCheck.dll",
                             "keygen", Key, "1024"});
    ASSERT_EQ(R.ExitCode, 0) << R.Err;
  }

  test::CommandResult test(std::vector<std::string> Args, StringRef In = "") {
    Args.insert(Args.begin(), {"test", "-nologo"});
    return Sample->dotnet(Args, In);
  }
  std::string out(StringRef Relative) { return Sample->root() + "/" + Relative.str(); }
  std::vector<std::string> weft(StringRef Folder) {
    return {"-p:WeftCoverage=true", "-p:WeftCoverageFormat=lcov",
            "-p:WeftCoverageDirectory=" + out(Folder)};
  }
  /// `dotnet test ARGS` with weft (its LCOV in weft-NAME/) and with coverlet.msbuild (its JSON
  /// in coverlet-NAME/).
  void runBoth(std::vector<std::string> Args, StringRef Name) {
    std::vector<std::string> W = Args, C = Args;
    for (const std::string &A : weft(("weft-" + Name).str()))
      W.push_back(A);
    for (const std::string &A :
         {std::string("-p:CollectCoverage=true"), std::string("-p:CoverletOutputFormat=json"),
          "-p:CoverletOutput=" + out(("coverlet-" + Name).str()) + "/"})
      C.push_back(A);
    test::CommandResult R = test(W);
    ASSERT_EQ(R.ExitCode, 0) << R.Out;
    EXPECT_TRUE(contains(R.Out, "weft: coverage report: " + out(("weft-" + Name).str()) +
                                    "/coverage.info (lines "))
        << R.Out;
    R = test(C);
    ASSERT_EQ(R.ExitCode, 0) << R.Out;
  }
};

TEST_F(DotnetTest, EveryFormGivesCoverletsReport) {
  // Both target frameworks: weft's one report, coverlet's two added up.
  runBoth({Tests}, "both");
  test::expectSameAsCoverlet(test::weftLcovFile(out("weft-both/coverage.info")),
                             test::coverletJsonFiles(out("coverlet-both")), "both frameworks");

  // One framework (how CI runs one of a multi-targeted project's): the report is written, and
  // is that framework's alone although the folder held both frameworks' data.
  test::CommandResult R =
      test({Tests, "-f", "net10.0", "-p:WeftCoverage=true", "-p:WeftCoverageFormat=lcov",
            "-p:WeftCoverageDirectory=" + out("weft-both")});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  R = test({Tests, "-f", "net10.0", "-p:CollectCoverage=true", "-p:CoverletOutputFormat=json",
            "-p:CoverletOutput=" + out("coverlet-net10") + "/"});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  test::CoverageFigures Net10 = test::weftLcovFile(out("weft-both/coverage.info"));
  test::expectSameAsCoverlet(Net10, test::coverletJsonFiles(out("coverlet-net10")), "-f net10.0");

  // --no-build, the folder without its final slash, and relative to the project.
  R = test({Tests, "-f", "net10.0", "--no-build", "-p:WeftCoverage=true",
            "-p:WeftCoverageFormat=lcov", "-p:WeftCoverageDirectory=results/relative"});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  expectSameReport(test::weftLcovFile(Sample->path("Calc.Tests/results/relative/coverage.info")),
                   Net10, "--no-build, a relative folder");
  EXPECT_FALSE(sys::fs::exists(Sample->path("Calc.Tests/results/relativeweft-coverage")));

  // --results-directory, relative to where dotnet test runs, as dotnet test takes it.
  R = test({Tests, "-f", "net10.0", "--no-build", "-p:WeftCoverage=true",
            "-p:WeftCoverageFormat=lcov", "--results-directory", "results-here"});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  expectSameReport(test::weftLcovFile(Sample->path("results-here/coverage.info")), Net10,
                   "--results-directory");

  // Release: the compiler's other code, measured the same by both.
  runBoth({Tests, "-c", "Release", "-f", "net10.0"}, "release");
  test::expectSameAsCoverlet(test::weftLcovFile(out("weft-release/coverage.info")),
                             test::coverletJsonFiles(out("coverlet-release")), "-c Release");
}

TEST_F(DotnetTest, SolutionMakesOneReportAndEachProjectsWhenAsked) {
  test::CommandResult R =
      test({"Forms.slnx", "-p:WeftCoverage=true", "-p:WeftCoverageFormat=lcov",
            "-p:WeftCoverageEachProject=true", "--results-directory", out("solution")});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  // coverlet.msbuild on the same solution: each project's reports in a folder of its own
  // (Directory.Build.props: CoverletOutputRoot).
  R = test({"Forms.slnx", "-p:CollectCoverage=true", "-p:CoverletOutputFormat=json",
            "-p:CoverletOutputRoot=" + out("coverlet-solution")});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  test::expectSameAsCoverlet(test::weftLcovFile(out("solution/coverage.info")),
                             test::coverletJsonFiles(out("coverlet-solution")),
                             "the solution, merged");
  // Each project's own report, against that project's.
  for (StringRef Project : {"Calc.MoreTests", "Calc.NUnit", "Calc.Tests"})
    test::expectSameAsCoverlet(
        test::weftLcovFile(out(("solution/" + Project + "/coverage.info").str())),
        test::coverletJsonFiles(out(("coverlet-solution/" + Project).str())), Project);
}

TEST_F(DotnetTest, PropertiesOfDirectoryBuildPropsWithStrictBuilds) {
  // A copy of its own: the build's settings go into its Directory.Build.props, where a
  // repository keeps them (a deterministic build, its sources /_/...; PDBs embedded in the
  // assemblies; warnings as errors; a strong-named library), and the coverage properties into a
  // Directory.Build.targets (imported after the package's targets, as some repositories' test
  // settings are); -warnaserror on the command line.
  test::DotnetSample Strict("tests/dotnet-test", "dotnet-test-strict", WEFT_PACKAGE_VERSION);
  std::string Props = test::readFile(Strict.path("Directory.Build.props"));
  size_t End = Props.rfind("</Project>");
  ASSERT_NE(End, std::string::npos);
  Props.insert(End, "  <PropertyGroup>\n"
                    "    <ContinuousIntegrationBuild>true</ContinuousIntegrationBuild>\n"
                    "    <DebugType>embedded</DebugType>\n"
                    "    <TreatWarningsAsErrors>true</TreatWarningsAsErrors>\n"
                    "    <CalcKeyFile>" +
                        Key + "</CalcKeyFile>\n  </PropertyGroup>\n");
  ASSERT_TRUE(test::writeFile(Strict.path("Directory.Build.props"), Props));
  ASSERT_TRUE(test::writeFile(Strict.path("Directory.Build.targets"),
                              "<Project>\n  <PropertyGroup>\n"
                              "    <WeftCoverage>true</WeftCoverage>\n"
                              "    <WeftCoverageFormat>lcov</WeftCoverageFormat>\n"
                              "    <WeftCoverageDirectory>" +
                                  Strict.root() +
                                  "/strict</WeftCoverageDirectory>\n"
                                  "  </PropertyGroup>\n</Project>\n"));
  test::CommandResult R = Strict.dotnet({"test", "-nologo", Tests, "-warnaserror"});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  EXPECT_FALSE(contains(R.Out, ": warning ")) << R.Out;
  // Both frameworks' tests, one report.
  EXPECT_EQ(StringRef(R.Out).count("weft: coverage report: "), 1u) << R.Out;
  test::CommandResult Info = test::run(
      test::weftTool(), {"info", Strict.path("artifacts/bin/Calc/debug_net10.0/Calc.dll")});
  EXPECT_TRUE(contains(Info.Out, "signed, signature valid")) << Info.Out;
  // The sources named where they are, as in the plain build's report.
  R = test({Tests, "-p:WeftCoverage=true", "-p:WeftCoverageFormat=lcov",
            "-p:WeftCoverageDirectory=" + out("plain")});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  test::CoverageFigures A = test::weftLcovFile(out("plain/coverage.info"));
  test::CoverageFigures B = test::weftLcovFile(Strict.root() + "/strict/coverage.info");
  // Same lines and outcomes, but in each copy's own folder.
  auto Relative = [](const test::CoverageFigures &F, const std::string &Dir) {
    test::CoverageFigures Out;
    for (const auto &[K, H] : F.Lines)
      Out.Lines[{StringRef(K.first).startswith(Dir) ? K.first.substr(Dir.size()) : "?" + K.first,
                 K.second}] = H;
    for (const auto &[K, H] : F.Branches)
      Out.Branches[{StringRef(std::get<0>(K)).startswith(Dir) ? std::get<0>(K).substr(Dir.size())
                                                              : "?" + std::get<0>(K),
                    std::get<1>(K), std::get<2>(K), std::get<3>(K)}] = H;
    return Out;
  };
  expectSameReport(Relative(B, Strict.dir()), Relative(A, Sample->dir()),
                   "strict build, properties in Directory.Build.props");
}

TEST_F(DotnetTest, NoReportIsNeverSilent) {
  // Built once, then each cause on the built tests.
  test::CommandResult R = test({Tests, "-f", "net10.0"});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  std::string Calc = Sample->path("artifacts/bin/Calc.Tests/debug_net10.0/Calc.dll");
  auto Woven = [&] { return contains(test::run(test::weftTool(), {"dump", Calc}).Out, "<weft>"); };

  // Filters that leave out every method: nothing is measured (in MSBuild's process, and through
  // the weft executable).
  for (std::string InProcess : {"true", "false"}) {
    std::string Folder = out("excluded-" + InProcess);
    R = test({Tests, "-f", "net10.0", "--no-build", "-p:WeftCoverage=true",
              "-p:WeftExclude=[Calc]*", "-p:WeftInProcess=" + InProcess,
              "-p:WeftCoverageDirectory=" + Folder});
    EXPECT_NE(R.ExitCode, 0) << InProcess;
    EXPECT_TRUE(contains(R.Out, "error WEFT0012: WeftCoverage: nothing was measured in Calc.Tests "
                                "(net10.0): the filters"))
        << R.Out;
    EXPECT_FALSE(sys::fs::exists(Folder + "/coverage.cobertura.xml"));
    EXPECT_FALSE(Woven());
  }

  // No test runs: no hits.
  R = test({Tests, "-f", "net10.0", "--no-build", "-p:WeftCoverage=true", "--filter",
            "FullyQualifiedName~NoSuchTest", "-p:WeftCoverageDirectory=" + out("unrun")});
  EXPECT_NE(R.ExitCode, 0);
  EXPECT_TRUE(contains(R.Out, "error WEFT0013: WeftCoverage: the tests of Calc.Tests (net10.0) "
                              "wrote no hits"))
      << R.Out;
  EXPECT_FALSE(sys::fs::exists(out("unrun/coverage.cobertura.xml")));
  EXPECT_FALSE(Woven());

  // A report that cannot be written says where and why, in MSBuild's process or not.
  ASSERT_TRUE(test::writeFile(out("a-file"), "not a folder\n"));
  for (const char *InProcess : {"true", "false"}) {
    R = test({Tests, "-f", "net10.0", "--no-build", "-p:WeftCoverage=true",
              std::string("-p:WeftInProcess=") + InProcess,
              "-p:WeftCoverageReport=" + out("a-file") + "/coverage.xml"});
    EXPECT_NE(R.ExitCode, 0) << InProcess;
    EXPECT_TRUE(contains(R.Out, out("a-file")) && contains(R.Out, "error WEFT0004")) << R.Out;
    EXPECT_FALSE(contains(R.Out, "without saying why")) << R.Out;
    EXPECT_FALSE(Woven());
  }

  // On .NET's MSBuild the coverage steps run weft in MSBuild's process (the task says so at
  // normal verbosity); with WeftInProcess=false the executable: the same report either way.
  // Each after a run cut short between its weave and its tests (Calc.dll woven in place, the
  // original kept aside), whose original the next run puts back before it weaves.
  std::string Both[2];
  std::string Originals = Sample->path("artifacts/obj/Calc.Tests/debug_net10.0/weft/coverage-originals");
  for (int InProcess : {1, 0}) {
    R = test::run(test::weftTool(), {"weave", Calc, "--in-place", "--keep-originals", Originals,
                                     "--side-files-dir", out("cut-short"), "--pass", "coverage"});
    ASSERT_EQ(R.ExitCode, 0) << R.Err;
    ASSERT_TRUE(Woven() && sys::fs::exists(Originals + "/Calc.dll"));
    std::string Folder = out(InProcess ? "in-process" : "executable");
    R = test({Tests, "-f", "net10.0", "--no-build", "-p:WeftCoverage=true", "-v:n",
              std::string("-p:WeftInProcess=") + (InProcess ? "true" : "false"),
              "-p:WeftCoverageDirectory=" + Folder});
    ASSERT_EQ(R.ExitCode, 0) << R.Out;
    EXPECT_EQ(contains(R.Out, "(in MSBuild's process, "), bool(InProcess)) << R.Out;
    EXPECT_TRUE(
        contains(R.Out, "weft: coverage report: " + Folder + "/coverage.cobertura.xml (lines "))
        << R.Out;
    EXPECT_FALSE(sys::fs::exists(Originals + "/Calc.dll")) << InProcess;
    Both[InProcess] = test::readFile(Folder + "/coverage.cobertura.xml");
    size_t T = Both[InProcess].find("timestamp=\"");
    ASSERT_NE(T, std::string::npos);
    Both[InProcess].erase(T, Both[InProcess].find('"', T + 11) + 1 - T);
    EXPECT_FALSE(Woven());
  }
  EXPECT_GT(Both[1].size(), 1000u);
  EXPECT_EQ(Both[0], Both[1]);

  // A test project with no project reference has nothing to measure.
  ASSERT_FALSE(sys::fs::create_directories(Sample->path("Alone")));
  std::string Project = test::readFile(Sample->path(MoreTests));
  size_t At = Project.find("    <ProjectReference");
  ASSERT_NE(At, std::string::npos);
  Project.erase(At, Project.find('\n', At) + 1 - At);
  ASSERT_TRUE(test::writeFile(Sample->path("Alone/Alone.csproj"), Project));
  ASSERT_TRUE(test::writeFile(Sample->path("Alone/AloneTests.cs"),
                              "public class AloneTests { [Xunit.Fact] public void Runs() { } }\n"));
  R = test({"Alone/Alone.csproj", "-p:WeftCoverage=true"});
  EXPECT_NE(R.ExitCode, 0);
  EXPECT_TRUE(contains(R.Out, "error WEFT0007: WeftCoverage: Alone references no project whose "
                              "assembly could be measured"))
      << R.Out;

  // The data collector says the same as errors of the test run.
  R = test({"Alone/Alone.csproj", "--no-build", "--collect", "XPlat Code Coverage",
            "--results-directory", out("collected-alone")});
  EXPECT_NE(R.ExitCode, 0);
  EXPECT_TRUE(contains(R.Out, "error WEFT0007: Alone.dll references no project")) << R.Out;
  EXPECT_TRUE(test::filesUnder(out("collected-alone"), {"coverage.cobertura.xml"}).empty());
  R = test(
      {Tests, "-f", "net10.0", "--no-build", "--collect", "XPlat Code Coverage",
       "--results-directory", out("collected-excluded"), "--",
       "DataCollectionRunSettings.DataCollectors.DataCollector.Configuration.Exclude=[Calc]*"});
  EXPECT_NE(R.ExitCode, 0);
  EXPECT_TRUE(contains(R.Out, "error WEFT0012: nothing was measured")) << R.Out;
  EXPECT_TRUE(test::filesUnder(out("collected-excluded"), {"coverage.cobertura.xml"}).empty());
  EXPECT_FALSE(Woven());
  R = test({Tests, "-f", "net10.0", "--no-build", "--collect", "XPlat Code Coverage", "--filter",
            "FullyQualifiedName~NoSuchTest", "--results-directory", out("collected-unrun")});
  EXPECT_NE(R.ExitCode, 0);
  EXPECT_TRUE(contains(R.Out, "error WEFT0013: the tests wrote no hits: Calc.Tests.dll")) << R.Out;
  EXPECT_FALSE(Woven());
  R = test({Tests, "-f", "net10.0", "--no-build", "--collect", "XPlat Code Coverage",
            "--results-directory", out("collected")});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  std::vector<std::string> Reports = test::filesUnder(out("collected"), {"coverage.cobertura.xml"});
  ASSERT_EQ(Reports.size(), 1u) << R.Out;
  EXPECT_TRUE(contains(R.Out, "Attachments:\n  " + Reports.front())) << R.Out;
  EXPECT_FALSE(contains(R.Out, "warning")) << R.Out;
  EXPECT_FALSE(Woven());
}

} // namespace
