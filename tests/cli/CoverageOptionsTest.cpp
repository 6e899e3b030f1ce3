//===- tests/cli/CoverageOptionsTest.cpp - coverlet's options in weft -----===//
//
// The coverage pass's filters on corpus programs (what they leave out has no counter and is not
// in the map; bad filters are errors naming the rule and the filter), and `weft coverage report`'s
// thresholds and data folders on a woven program's real run: the report is written, then every
// figure below its threshold is an error (WEFT0008 with --message-format msbuild), exit 1.
//
//===----------------------------------------------------------------------===//
#include "coverage/Report.h"
#include "coverage/Threshold.h"
#include "tests/support/Env.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>
#include <set>

using namespace llvm;
using namespace weft;

namespace {

struct Woven {
  std::string Dir, Dll, Map;
  test::CommandResult Weave;
};

Woven weave(const std::string &Name, const std::string &Tag, const std::string &Pass) {
  Woven W;
  W.Dir = test::scratchDir("coverage-options-" + Tag);
  W.Dll = W.Dir + "/" + Name + ".dll";
  W.Map = W.Dll + ".coverage.json";
  W.Weave = test::run(test::weftTool(), {"weave", test::corpusDll(Name), "-o", W.Dll, "--pass",
                                         Pass, "--verify-each"});
  return W;
}

coverage::Map readMap(const Woven &W) {
  Expected<coverage::Map> M = coverage::readMap(test::readFile(W.Map));
  EXPECT_TRUE(bool(M)) << (M ? "" : toString(M.takeError()));
  return M ? std::move(*M) : coverage::Map();
}

/// "Type::Name" of every method in the map.
std::set<std::string> methods(const coverage::Map &M) {
  std::set<std::string> Out;
  for (const coverage::Method &Me : M.Methods)
    Out.insert(Me.Type + "::" + Me.Name);
  return Out;
}

/// The source lines of a method's statements, in order.
std::vector<uint32_t> lines(const coverage::Map &M, StringRef Type, StringRef Name) {
  std::vector<uint32_t> Out;
  for (const coverage::Method &Me : M.Methods)
    if (Me.Type == Type && Me.Name == Name)
      for (const coverage::Block &B : Me.Blocks)
        for (const coverage::SourceSpan &S : B.Lines)
          Out.push_back(S.StartLine);
  return Out;
}

TEST(CoverageOptions, ExcludeFiltersLeaveTypesOutOfTheMap) {
  ASSERT_TRUE(sys::fs::exists(test::corpusDll("Properties"))) << "the corpus.build test builds it";
  Woven All = weave("Properties", "all", "coverage");
  ASSERT_EQ(All.Weave.ExitCode, 0) << All.Weave.Err;
  std::set<std::string> Every = methods(readMap(All));
  ASSERT_TRUE(Every.count("Weft.Corpus.Properties.Precise::Touch"));
  ASSERT_TRUE(Every.count("Weft.Corpus.Properties.Person::get_Last"));

  // One type by name, a namespace's types by a pattern (and the types they enclose).
  Woven W = weave("Properties", "exclude",
                  "coverage:exclude=[Properties]Weft.Corpus.Properties.Precise,"
                  "exclude=[Prop*]Weft.Corpus.Properties.Per?son");
  ASSERT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
  std::set<std::string> Left = methods(readMap(W));
  for (const std::string &M : Every) {
    bool Out = StringRef(M).startswith("Weft.Corpus.Properties.Precise::") ||
               StringRef(M).startswith("Weft.Corpus.Properties.Person::") ||
               StringRef(M).startswith("Weft.Corpus.Properties.Person/");
    EXPECT_EQ(Left.count(M), Out ? 0u : 1u) << M;
  }
  // A filter's assembly is matched with case when it picks types: "[properties]" picks none.
  Woven Case =
      weave("Properties", "case", "coverage:exclude=[properties]Weft.Corpus.Properties.Precise");
  EXPECT_EQ(methods(readMap(Case)), Every);

  // Include: only the types named; exclude wins over include.
  Woven In = weave("Properties", "include",
                   "coverage:include=[Properties]Weft.Corpus.Properties.P*,"
                   "exclude=[Properties]Weft.Corpus.Properties.Precise");
  ASSERT_EQ(In.Weave.ExitCode, 0) << In.Weave.Err;
  for (const std::string &M : methods(readMap(In)))
    EXPECT_TRUE(StringRef(M).startswith("Weft.Corpus.Properties.P") &&
                !StringRef(M).startswith("Weft.Corpus.Properties.Precise"))
        << M;
  EXPECT_FALSE(methods(readMap(In)).empty());

  // A whole assembly ([Name]*, without case): woven, but nothing counted nor reported.
  Woven None = weave("Properties", "none", "coverage:exclude=[PROPERTIES]*");
  ASSERT_EQ(None.Weave.ExitCode, 0) << None.Weave.Err;
  coverage::Map Empty = readMap(None);
  EXPECT_TRUE(Empty.Methods.empty());
  EXPECT_EQ(Empty.Counters, 0u);
}

TEST(CoverageOptions, SkipAutoPropsLeavesTheCompilersAccessorsAndInitialValuesOut) {
  Woven All = weave("Properties", "props-all", "coverage");
  Woven Skip = weave("Properties", "props-skip", "coverage:skip-auto-props=true");
  ASSERT_EQ(Skip.Weave.ExitCode, 0) << Skip.Weave.Err;
  coverage::Map A = readMap(All), S = readMap(Skip);
  std::set<std::string> Left = methods(S);
  // `public string Last { get; set; } = "Unknown";` goes, with its initial value in the
  // constructor; `First`, whose accessors the user wrote, and `_first = ""` stay.
  EXPECT_FALSE(Left.count("Weft.Corpus.Properties.Person::get_Last"));
  EXPECT_FALSE(Left.count("Weft.Corpus.Properties.Person::set_Last"));
  EXPECT_FALSE(Left.count("Weft.Corpus.Properties.Person::get_Age"));
  EXPECT_TRUE(Left.count("Weft.Corpus.Properties.Person::get_First"));
  EXPECT_TRUE(Left.count("Weft.Corpus.Properties.Person::get_Score"));
  std::string Source = test::readFile(test::sourceDir() + "/corpus/Properties/Program.cs");
  auto LineOf = [&](StringRef Text) {
    size_t At = Source.find(Text.str());
    EXPECT_NE(At, std::string::npos) << Text.str();
    return uint32_t(StringRef(Source).take_front(At).count('\n') + 1);
  };
  uint32_t Last = LineOf("public string Last { get; set; } = \"Unknown\";");
  uint32_t First = LineOf("private string _first = \"\";");
  std::vector<uint32_t> Before = lines(A, "Weft.Corpus.Properties.Person", ".ctor");
  std::vector<uint32_t> After = lines(S, "Weft.Corpus.Properties.Person", ".ctor");
  EXPECT_TRUE(llvm::is_contained(Before, Last));
  EXPECT_FALSE(llvm::is_contained(After, Last));
  EXPECT_TRUE(llvm::is_contained(After, First));
}

TEST(CoverageOptions, BadOptionsAreErrorsNamingThem) {
  Woven W = weave("Properties", "bad", "coverage:exclude=Weft.Corpus.*");
  EXPECT_EQ(W.Weave.ExitCode, 1);
  EXPECT_TRUE(StringRef(W.Weave.Err)
                  .contains("--pass coverage:exclude=Weft.Corpus.*: exclude 'Weft.Corpus.*': not "
                            "a filter of the form [Assembly]Type (it must start with '[')"))
      << W.Weave.Err;
  EXPECT_FALSE(sys::fs::exists(W.Dll));
  W = weave("Properties", "bad2", "coverage:skip-auto-props=yes");
  EXPECT_EQ(W.Weave.ExitCode, 1);
  EXPECT_TRUE(StringRef(W.Weave.Err).contains("skip-auto-props must be true or false, not 'yes'"))
      << W.Weave.Err;
}

/// A woven Switches and its run's hits, in a folder of the test's own (CTest runs the tests that
/// use it side by side).
struct Measured {
  Woven W;
  std::string Hits;
};
Measured measureSwitches() {
  Measured R;
  const ::testing::TestInfo *Test = ::testing::UnitTest::GetInstance()->current_test_info();
  R.W = weave("Switches", std::string("measured-") + Test->name(), "coverage");
  EXPECT_EQ(R.W.Weave.ExitCode, 0) << R.W.Weave.Err;
  test::copyCorpusCompanions("Switches", R.W.Dir);
  R.Hits = R.W.Dir + "/Switches.weft-hits";
  test::CommandResult Run = test::run("dotnet", {R.W.Dll}, {"WEFT_COVERAGE_FILE=" + R.Hits}, 300);
  EXPECT_EQ(Run.ExitCode, 0) << Run.Err;
  return R;
}

TEST(CoverageOptions, ThresholdsFailTheReportAfterWritingIt) {
  Measured S = measureSwitches();
  // The figures the thresholds are checked against, from the same map and hits.
  Expected<coverage::Map> M = coverage::readMap(test::readFile(S.W.Map));
  ASSERT_TRUE(bool(M));
  Expected<coverage::Hits> H = coverage::readHits(test::readFile(S.Hits));
  ASSERT_TRUE(bool(H));
  ASSERT_FALSE(bool(coverage::addHits(*M, *H)));
  std::vector<coverage::ModuleFigures> F = coverage::moduleFigures({*M});
  ASSERT_EQ(F.size(), 1u);
  double Line = coverage::percent(F[0].Lines);
  ASSERT_GT(Line, 50);
  ASSERT_LT(Line, 100) << "Switches has lines that do not run";
  std::string LineText = formatv("{0:F2}", Line).str();
  while (LineText.back() == '0' || LineText.back() == '.')
    LineText.pop_back();

  std::string Out = S.W.Dir + "/coverage.xml";
  auto Report = [&](std::vector<std::string> More) {
    std::vector<std::string> Args = {"coverage", "report", "--map", S.W.Map,
                                     "--hits",   S.Hits,   "-o",    Out};
    Args.insert(Args.end(), More.begin(), More.end());
    sys::fs::remove(Out);
    return test::run(test::weftTool(), Args);
  };
  test::CommandResult R = Report({"--threshold", "50", "--threshold-type", "line"});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_TRUE(sys::fs::exists(Out));

  R = Report({"--threshold", "100", "--threshold-type", "line,method"});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_TRUE(StringRef(R.Err).contains("weft: error: line coverage of module 'Switches' is " +
                                        LineText + "%, below the threshold of 100%\n"))
      << R.Err;
  EXPECT_TRUE(sys::fs::exists(Out)) << "the report is written before the thresholds fail";

  // For MSBuild: a canonical error with weft's code.
  R = Report({"--threshold", "100,0", "--threshold-type", "line,method", "--threshold-stat",
              "total", "--message-format", "msbuild"});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_EQ(R.Err, "weft: error WEFT0008: total line coverage of 1 module is " + LineText +
                       "%, below the threshold of 100%\n");

  R = Report({"--threshold", "80", "--threshold-type", "lines"});
  EXPECT_EQ(R.ExitCode, 2);
  EXPECT_TRUE(StringRef(R.Err).contains("threshold type 'lines' is none of line, branch and "
                                        "method"))
      << R.Err;
  EXPECT_FALSE(sys::fs::exists(Out)) << "a usage error writes nothing";
}

TEST(CoverageOptions, DataFoldersAreReadWhole) {
  Measured S = measureSwitches();
  test::CommandResult ByFile = test::run(test::weftTool(), {"coverage", "report", "--map", S.W.Map,
                                                            "--hits", S.Hits, "--format", "lcov"});
  ASSERT_EQ(ByFile.ExitCode, 0) << ByFile.Err;
  test::CommandResult ByFolder =
      test::run(test::weftTool(), {"coverage", "report", "--data", S.W.Dir, "--format", "lcov"});
  ASSERT_EQ(ByFolder.ExitCode, 0) << ByFolder.Err;
  EXPECT_EQ(ByFolder.Out, ByFile.Out);
  // The same folder twice, spelled two ways, is read once (the counts do not double).
  test::CommandResult Twice =
      test::run(test::weftTool(), {"coverage", "report", "--data", S.W.Dir, "--data",
                                   S.W.Dir + "/./", "--format", "lcov"});
  ASSERT_EQ(Twice.ExitCode, 0) << Twice.Err;
  EXPECT_EQ(Twice.Out, ByFile.Out);
  // Folders under the data folder are read too (the package's targets keep a folder a test
  // project and target framework).
  std::string Nested = test::scratchDir("coverage-options-nested");
  ASSERT_FALSE(sys::fs::create_directories(Nested + "/Tests-1a2b/net10.0"));
  ASSERT_FALSE(sys::fs::copy_file(S.W.Map, Nested + "/Tests-1a2b/net10.0/Switches.dll.coverage.json"));
  ASSERT_FALSE(sys::fs::copy_file(S.Hits, Nested + "/Tests-1a2b/net10.0/Switches.weft-hits"));
  test::CommandResult Under =
      test::run(test::weftTool(), {"coverage", "report", "--data", Nested, "--format", "lcov"});
  ASSERT_EQ(Under.ExitCode, 0) << Under.Err;
  EXPECT_EQ(Under.Out, ByFile.Out);
  test::CommandResult Missing =
      test::run(test::weftTool(), {"coverage", "report", "--data", S.W.Dir + "/nothing"});
  EXPECT_EQ(Missing.ExitCode, 1);
  EXPECT_TRUE(StringRef(Missing.Err).contains("nothing': --data: no such folder")) << Missing.Err;
}

TEST(CoverageOptions, SummarySaysWhereTheReportsAreWithTheirFigures) {
  Measured S = measureSwitches();
  std::string Out = S.W.Dir + "/reports/";
  test::CommandResult R =
      test::run(test::weftTool(), {"coverage", "report", "--map", S.W.Map, "--hits", S.Hits,
                                   "--format", "cobertura,lcov", "-o", Out, "--summary"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  Expected<coverage::Map> M = coverage::readMap(test::readFile(S.W.Map));
  ASSERT_TRUE(bool(M));
  Expected<coverage::Hits> H = coverage::readHits(test::readFile(S.Hits));
  ASSERT_TRUE(bool(H));
  ASSERT_FALSE(bool(coverage::addHits(*M, *H)));
  // The lines and outcomes as the report's root states them, the methods as coverlet counts.
  coverage::ModuleFigures F = coverage::moduleFigures({*M}).at(0);
  coverage::ReportTotals T = coverage::reportTotals({*M});
  std::string Xml = test::readFile(Out + "coverage.cobertura.xml");
  EXPECT_TRUE(StringRef(Xml).contains(" lines-covered=\"" + std::to_string(T.LinesCovered) +
                                      "\" lines-valid=\"" + std::to_string(T.Lines) + "\""))
      << Xml.substr(0, 400);
  auto Figure = [](StringRef Name, uint64_t Covered, uint64_t Total) {
    return (Name + " " + coverage::percentText(coverage::percent({Covered, Total})) + " " +
            Twine(Covered) + "/" + Twine(Total))
        .str();
  };
  EXPECT_EQ(R.Out, "coverage report: " + Out + "coverage.cobertura.xml, " + Out +
                       "coverage.info (" + Figure("lines", T.LinesCovered, T.Lines) + ", " +
                       Figure("branches", T.BranchesCovered, T.Branches) + ", " +
                       Figure("methods", F.Methods.Covered, F.Methods.Total) + ")\n");
  EXPECT_GT(T.Branches, T.BranchesCovered);
  EXPECT_TRUE(sys::fs::exists(Out + "coverage.info"));
}

TEST(CoverageOptions, NothingMeasuredIsAnErrorAndNoReport) {
  Woven W = weave("Switches", "nothing", "coverage:exclude=[Switches]*");
  ASSERT_EQ(W.Weave.ExitCode, 0) << W.Weave.Err;
  std::string Out = W.Dir + "/coverage.xml";
  test::CommandResult R =
      test::run(test::weftTool(), {"coverage", "report", "--map", W.Map, "-o", Out,
                                   "--message-format", "msbuild"});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_EQ(R.Err, "weft: error WEFT0012: nothing was measured: the filters leave out every "
                   "method of Switches, so there is no report to make\n");
  EXPECT_FALSE(sys::fs::exists(Out));
  // --check says the same, and of a map that measures something nothing at all.
  R = test::run(test::weftTool(), {"coverage", "report", "--map", W.Map, "--check"});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_TRUE(StringRef(R.Err).startswith("weft: error: nothing was measured")) << R.Err;
  Woven Some = weave("Switches", "some", "coverage");
  ASSERT_EQ(Some.Weave.ExitCode, 0) << Some.Weave.Err;
  R = test::run(test::weftTool(), {"coverage", "report", "--map", Some.Map, "--check"});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Out + R.Err, "");
  // It writes no report, so it takes no place to write one, and checks no threshold.
  R = test::run(test::weftTool(), {"coverage", "report", "--map", Some.Map, "--check", "-o", Out});
  EXPECT_EQ(R.ExitCode, 2);
  EXPECT_FALSE(sys::fs::exists(Out));
  R = test::run(test::weftTool(),
                {"coverage", "report", "--map", Some.Map, "--check", "--threshold", "80"});
  EXPECT_EQ(R.ExitCode, 2) << R.Err;
}

} // namespace
