//===- tests/unit/CoverageOptionsTest.cpp - coverlet's options, in pieces --===//
//
// The parts of the coverage options that need no assembly: coverlet's `[Assembly]Type` filters
// (what it takes, what they match, and how case counts), source file globs, and the thresholds
// on hand-made report models, branches included (Method::Branches).
//
//===----------------------------------------------------------------------===//
#include "coverage/Threshold.h"
#include "passes/coverage/CoverageFilter.h"

#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

using namespace llvm;
using namespace weft;
using namespace weft::coverage;
using passes::TypeFilter;

namespace {

TypeFilter filter(StringRef Text) {
  Expected<TypeFilter> F = TypeFilter::parse(Text);
  EXPECT_TRUE(bool(F)) << Text.str() << ": " << (F ? "" : toString(F.takeError()));
  return F ? std::move(*F) : *TypeFilter::parse("[x]x");
}

std::string parseError(StringRef Text) {
  Expected<TypeFilter> F = TypeFilter::parse(Text);
  return F ? "" : toString(F.takeError());
}

TEST(CoverageFilter, TakesWhatCoverletTakes) {
  for (StringRef Good : {"[*]*", "[coverlet.*]Coverlet.Core.Coverage", "[*]Coverlet.Core*",
                         "[coverlet.*.tests?]*", "[My_App]*Program", "[Ünïcode]Ns.Typé"})
    EXPECT_EQ(parseError(Good), "") << Good.str();
  EXPECT_EQ(parseError("Coverlet.Core*"),
            "not a filter of the form [Assembly]Type (it must start with '[')");
  EXPECT_EQ(parseError("[]Type"),
            "not a filter of the form [Assembly]Type (the assembly is empty)");
  EXPECT_EQ(parseError("[A]"), "not a filter of the form [Assembly]Type (the type is empty)");
  EXPECT_EQ(parseError("[A][B]*"), "not a filter of the form [Assembly]Type (one '[' and one ']')");
  EXPECT_EQ(parseError("[A]Ns.Type<T>"),
            "not a filter of the form [Assembly]Type ('<' is none of letters, digits, '_', '.', "
            "'*' and '?')");
  EXPECT_EQ(parseError("[A]?x"), "not a filter of the form [Assembly]Type ('?' makes the "
                                 "character before it optional, and has none)");
}

TEST(CoverageFilter, MatchesAsCoverletDoes) {
  TypeFilter F = filter("[coverlet.*.tests?]*");
  EXPECT_TRUE(F.matches("coverlet.core.tests", "Any.Type"));
  EXPECT_TRUE(F.matches("coverlet.core.test", "Any.Type"));
  EXPECT_FALSE(F.matches("coverlet.core.testss", "Any.Type"));
  EXPECT_FALSE(F.matches("coverlet", "Any.Type"));
  // `.` is a dot, not any character; the whole name must match.
  TypeFilter G = filter("[A]Ns.Type");
  EXPECT_TRUE(G.matches("A", "Ns.Type"));
  EXPECT_FALSE(G.matches("A", "NsxType"));
  EXPECT_FALSE(G.matches("A", "Ns.Type2"));
  EXPECT_FALSE(G.matches("AB", "Ns.Type"));
  // Types are matched with case, modules (when choosing them) without.
  EXPECT_FALSE(G.matches("a", "Ns.Type"));
  EXPECT_FALSE(G.matches("A", "ns.type"));
  EXPECT_TRUE(G.matchesModule("a"));
  EXPECT_FALSE(G.wholeAssembly());
  EXPECT_FALSE(G.endsWithStar());
  TypeFilter H = filter("[Gre*]*");
  EXPECT_TRUE(H.wholeAssembly());
  EXPECT_TRUE(H.endsWithStar());
  EXPECT_TRUE(H.matchesModule("greeter"));
  // Nested types by their Cecil names.
  EXPECT_TRUE(filter("[A]Ns.Outer*").matches("A", "Ns.Outer/<>c"));
  // Several stars, a star made optional, an optional character before a star; many stars over a
  // long name that does not match take no longer than the name (no backtracking).
  TypeFilter K = filter("[*]*.Data*.*Models?");
  EXPECT_TRUE(K.matches("X", "App.Data.Models"));
  EXPECT_TRUE(K.matches("X", "App.DataAccess.Db.UserModel"));
  EXPECT_FALSE(K.matches("X", "App.Data.Models.Extra"));
  EXPECT_FALSE(K.matches("X", "Data.Models"));
  EXPECT_TRUE(filter("[A]x*?y").matches("A", "xy"));
  EXPECT_TRUE(filter("[A]xz?*").matches("A", "x"));
  EXPECT_FALSE(filter("[A]*a*a*a*a*a*a*a*a*a*a*b").matches("A", std::string(5000, 'a')));
}

TEST(CoverageFilter, FileGlobsAsFileSystemGlobbing) {
  using passes::matchesFileGlob;
  EXPECT_TRUE(matchesFileGlob("**/Generated/*.cs", "/src/App/Generated/Made.cs"));
  EXPECT_TRUE(matchesFileGlob("**/generated/*.CS", "/src/App/Generated/Made.cs"));
  EXPECT_FALSE(matchesFileGlob("**/Generated/*.cs", "/src/App/Generated/Deeper/Made.cs"));
  EXPECT_TRUE(matchesFileGlob("**/Generated/**/*.cs", "/src/App/Generated/Deeper/Made.cs"));
  EXPECT_TRUE(matchesFileGlob("**/Generated/**", "/src/App/Generated/Deeper/Made.cs"));
  EXPECT_TRUE(matchesFileGlob("**/*.g.cs", "C:\\src\\App\\Form.g.cs"));
  // From the root: a relative folder is the top folder.
  EXPECT_FALSE(matchesFileGlob("App/*.cs", "/src/App/Program.cs"));
  EXPECT_TRUE(matchesFileGlob("src/App/*.cs", "/src/App/Program.cs"));
  EXPECT_TRUE(matchesFileGlob("/src/App/Program.cs", "/src/App/Program.cs"));
  EXPECT_FALSE(matchesFileGlob("**/Program.cs", "/src/App/Program.cs.bak"));
  EXPECT_FALSE(matchesFileGlob("", "/src/App/Program.cs"));
}

// --- thresholds ---

/// A method of one statement per block, one line each, with the hits given per block, and
/// branch outcomes with the hits given.
Method method(std::string Type, std::string Name, std::vector<uint64_t> BlockHits,
              std::vector<uint64_t> BranchHits = {}, uint32_t FirstLine = 10) {
  Method M;
  M.Type = std::move(Type);
  M.Name = std::move(Name);
  M.Signature = "()";
  for (size_t I = 0; I < BlockHits.size(); ++I) {
    Block B;
    B.Hits = BlockHits[I];
    B.Lines.push_back({0, FirstLine + uint32_t(I), 1, FirstLine + uint32_t(I), 10});
    M.Blocks.push_back(B);
  }
  for (size_t I = 0; I < BranchHits.size(); ++I) {
    BranchPoint P;
    P.Line = FirstLine;
    P.Path = uint32_t(I % 2);
    P.Ordinal = uint32_t(I);
    P.Hits = BranchHits[I];
    M.Branches.push_back(P);
  }
  return M;
}

Map module(std::string Assembly, std::vector<Method> Methods) {
  Map M;
  M.Assembly = std::move(Assembly);
  M.Documents = {"/src/" + M.Assembly + ".cs"};
  M.Methods = std::move(Methods);
  return M;
}

TEST(CoverageThreshold, FiguresAsCoverletCountsThem) {
  // A: F's lines 10, 11, 12 (its first statement spans two); G's one statement on F's line 12; a
  // lambda of F's on lines 11 (ran) and 13 (did not). B: nothing run.
  std::vector<Map> Maps = {
      module("A", {method("A.T", "F", {1, 2, 0}, {5, 0, 0, 0}), method("A.T", "G", {0}, {}, 12),
                   method("A.T", "<F>b__0_0", {3, 0}, {}, 11)}),
      module("B", {method("B.T", "F", {0, 0})})};
  Maps[0].Methods[0].Blocks[0].Lines[0].EndLine = 11;
  Maps[0].Methods[2].Blocks[1].Lines[0].StartLine = 13;
  Maps[0].Methods[2].Blocks[1].Lines[0].EndLine = 13;
  std::vector<ModuleFigures> F = moduleFigures(Maps);
  ASSERT_EQ(F.size(), 2u);
  EXPECT_EQ(F[0].Assembly, "A");
  // Each line once, whichever methods have statements on it, as coverlet holds a document's
  // lines: 10 and 11 ran, 12 and 13 did not.
  EXPECT_EQ(F[0].Lines.Covered, 2u);
  EXPECT_EQ(F[0].Lines.Total, 4u);
  // A line is the first method's coverlet instruments with a statement on it (F, then G and the
  // lambda): F (run) and the lambda (its own line 13 did not run) have lines; G has none.
  EXPECT_EQ(F[0].Methods.Covered, 1u);
  EXPECT_EQ(F[0].Methods.Total, 2u);
  EXPECT_EQ(F[0].Branches.Covered, 1u);
  EXPECT_EQ(F[0].Branches.Total, 4u);
  EXPECT_EQ(F[1].Lines.Covered, 0u);
  EXPECT_EQ(F[1].Branches.Total, 0u);
  // Percentages are floored to two decimals; nothing to count is 100 %.
  EXPECT_EQ(percent({2, 3}), 66.66);
  EXPECT_EQ(percent({1, 3}), 33.33);
  EXPECT_EQ(percent({0, 0}), 100);
  EXPECT_EQ(percent({F[0].Branches.Covered, F[0].Branches.Total}), 25);
}

TEST(CoverageThreshold, TargetFrameworksOfOneAssemblyAreOneModule) {
  std::vector<Map> Maps = {module("A", {method("A.T", "F", {1, 0}, {0, 3})}),
                           module("A", {method("A.T", "F", {0, 2}, {4, 0})}), module("Gone", {})};
  std::vector<ModuleFigures> F = moduleFigures(Maps);
  ASSERT_EQ(F.size(), 1u) << "a map with no method (left out whole) is no module";
  EXPECT_EQ(F[0].Lines.Covered, 2u);
  EXPECT_EQ(F[0].Lines.Total, 2u);
  EXPECT_EQ(F[0].Branches.Covered, 2u);
  EXPECT_EQ(F[0].Branches.Total, 2u);
}

TEST(CoverageThreshold, StatisticsAndMessages) {
  std::vector<ModuleFigures> Modules(2);
  Modules[0].Assembly = "A";
  Modules[0].Lines = {1, 2};    // 50 %
  Modules[0].Branches = {3, 4}; // 75 %
  Modules[0].Methods = {1, 1};  // 100 %
  Modules[1].Assembly = "B";
  Modules[1].Lines = {9, 10};   // 90 %
  Modules[1].Branches = {0, 0}; // nothing: 100 %
  Modules[1].Methods = {2, 3};  // 66.66 %
  auto Check = [&](StringRef Values, StringRef Types, StringRef Stat) {
    Expected<std::vector<Threshold>> L = parseThresholds(Values, Types);
    Expected<Statistic> S = parseStatistic(Stat);
    EXPECT_TRUE(L && S);
    if (!L || !S) {
      consumeError(L.takeError());
      consumeError(S.takeError());
      return std::vector<std::string>{};
    }
    return checkThresholds(Modules, *L, *S);
  };
  EXPECT_EQ(Check("50", "line,branch,method", "minimum"), std::vector<std::string>{});
  EXPECT_EQ(
      Check("80", "line", "minimum"),
      std::vector<std::string>{"line coverage of module 'A' is 50%, below the threshold of 80%"});
  EXPECT_EQ(Check("70,80,70", "line,branch,method", "Minimum"),
            (std::vector<std::string>{
                "line coverage of module 'A' is 50%, below the threshold of 70%",
                "branch coverage of module 'A' is 75%, below the threshold of 80%",
                "method coverage of module 'B' is 66.66%, below the threshold of 70%"}));
  // Total: 10 of 12 lines (83.33 %), 3 of 4 branches; average: (50 + 90) / 2, (75 + 100) / 2.
  EXPECT_EQ(Check("84", "line", "total"),
            std::vector<std::string>{
                "total line coverage of 2 modules is 83.33%, below the threshold of 84%"});
  EXPECT_EQ(Check("83.33", "line", "total"), std::vector<std::string>{});
  EXPECT_EQ(Check("71,88", "line,branch", "average"),
            (std::vector<std::string>{
                "average line coverage of 2 modules is 70%, below the threshold of 71%",
                "average branch coverage of 2 modules is 87.5%, below the threshold of 88%"}));
  // Nothing measured counts as 0 %.
  EXPECT_EQ(checkThresholds({}, {{Metric::Line, 1}}, Statistic::Total),
            std::vector<std::string>{
                "line coverage (no module was measured) is 0%, below the threshold of 1%"});
  EXPECT_EQ(checkThresholds({}, {{Metric::Line, 0}}, Statistic::Total), std::vector<std::string>{});
}

TEST(CoverageThreshold, BadValuesSayWhich) {
  auto Error = [](StringRef Values, StringRef Types) {
    Expected<std::vector<Threshold>> L = parseThresholds(Values, Types);
    return L ? std::string() : toString(L.takeError());
  };
  EXPECT_EQ(Error("80", "line,lines"), "threshold type 'lines' is none of line, branch and method");
  EXPECT_EQ(Error("80,90", "line,branch,method"),
            "there are 2 thresholds for 3 threshold types: give one, or one for each type");
  EXPECT_EQ(Error("eighty", "line"), "threshold 'eighty' is not a percentage from 0 to 100");
  EXPECT_EQ(Error("101", "line"), "threshold '101' is not a percentage from 0 to 100");
  EXPECT_EQ(Error("80", ""), "no threshold type (line, branch, method)");
  Expected<Statistic> S = parseStatistic("median");
  ASSERT_FALSE(S);
  EXPECT_EQ(toString(S.takeError()),
            "threshold statistic 'median' is none of minimum, total and average");
}

} // namespace
