//===- tests/package/PackageOptionsTest.cpp - coverlet's options in dotnet test -===//
//
// corpus/WovenSolution (its library not woven on build) with code that coverlet's options act on
// (Greeter/Options.cs: methods, a property and a class marked [ExcludeFromCodeCoverage], their
// lambdas, local function, async and iterator state machines; an [Obsolete] method; auto-properties
// with initial values; a type a filter names; Greeter/Generated/Made.cs) and tests that call all of
// it, measured twice with the same options: by `dotnet test -p:WeftCoverage=true` with the Weft*
// properties and by coverlet.msbuild with its own. Both reports have the same lines, each hit as
// often, the test assembly included. Then: a threshold not met fails the build with WEFT0008 after
// writing the report; two test projects sharing a results folder (run at once, from the solution)
// make one report whose hits are the two projects' added up, and WeftMergeWith gives the same
// report from the folder of an earlier run. Last, `dotnet test --collect "XPlat Code Coverage"`
// with the package's data collector (no coverlet.collector) attaches one report per framework
// whose lines added up equal -p:WeftCoverage=true's, and takes coverlet.collector's run
// settings. A deterministic build (its PDBs name the sources /_/...) is reported with the
// sources' paths here, and as built with WeftDeterministicReport=true.
//
//===----------------------------------------------------------------------===//
#include "tests/support/Env.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>
#include <map>

using namespace llvm;
using namespace weft;

namespace {

const char *OptionsSource = R"cs(using System.Diagnostics.CodeAnalysis;

namespace Sample.Greeter.Options;

public class Settings
{
    public string Name { get; set; } = "weft";
    public int Size { get; init; }
    private readonly List<int> _items = new() { 1, 2 };

    public int Sum() => _items.Sum() + Size;

    [ExcludeFromCodeCoverage]
    public int Hidden(int x)
    {
        Func<int, int> twice = y => y * 2;
        return twice(x) + Local(x);

        int Local(int z) => z + 1;
    }

    [ExcludeFromCodeCoverage]
    public async Task<int> HiddenAsync(int x)
    {
        await Task.Yield();
        return x + 1;
    }

    [ExcludeFromCodeCoverage]
    public IEnumerable<int> HiddenItems()
    {
        yield return 1;
        yield return 2;
    }

    [ExcludeFromCodeCoverage]
    public int Extra
    {
        get { return 3; }
    }

    [Obsolete("old")]
    public int Old() => 42;

    public int Visible(int x)
    {
        Func<int, int> add = y => y + x;
        return add(1);
    }
}

[ExcludeFromCodeCoverage]
public class HiddenClass
{
    public int Get() => 5;

    public class Nested
    {
        public int Get() => 6;
    }
}

public class FilteredOut
{
    public int Get() => 7;
}
)cs";

const char *MadeSource = R"cs(namespace Sample.Greeter.Options;

public static class Made
{
    public static int Value() => 8;
}
)cs";

const char *TestsSource = R"cs(using Sample.Greeter.Options;
using Xunit;

namespace Sample.Greeter.Tests;

public class OptionsTests
{
    [Fact]
    public async Task EverythingRuns()
    {
        var s = new Settings { Size = 3 };
        Assert.Equal("weft", s.Name);
        Assert.Equal(6, s.Sum());
        Assert.Equal(10, s.Hidden(3));
        Assert.Equal(4, await s.HiddenAsync(3));
        Assert.Equal(3, s.HiddenItems().Sum());
        Assert.Equal(3, s.Extra);
#pragma warning disable CS0618
        Assert.Equal(42, s.Old());
#pragma warning restore CS0618
        Assert.Equal(3, s.Visible(2));
        Assert.Equal(5, new HiddenClass().Get());
        Assert.Equal(6, new HiddenClass.Nested().Get());
        Assert.Equal(7, new FilteredOut().Get());
        Assert.Equal(8, Made.Value());
    }
}
)cs";

/// A second test project: one framework, other tests of the same library.
const char *SecondProject = R"cs(<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup>
    <TargetFramework>net10.0</TargetFramework>
    <RollForward>Major</RollForward>
    <IsPackable>false</IsPackable>
  </PropertyGroup>
  <ItemGroup>
    <PackageReference Include="Microsoft.NET.Test.Sdk" Version="18.0.1" />
    <PackageReference Include="xunit" Version="2.9.3" />
    <PackageReference Include="xunit.runner.visualstudio" Version="3.1.5" />
    <PackageReference Include="Weft" Version="$(WeftVersion)" PrivateAssets="all" />
    <ProjectReference Include="../Greeter/Greeter.csproj" />
  </ItemGroup>
</Project>
)cs";

const char *SecondTests = R"cs(using Sample.Greeter;
using Xunit;

namespace Sample.Greeter.Tests2;

public class MoreTests
{
    [Fact]
    public void ShoutsNames() => Assert.Equal("HELLO, BO!", Greeting.Shout("bo"));

    [Fact]
    public void CountsNone() => Assert.Equal(0, Greeting.Count(new string[0]));
}
)cs";

using LineHits = std::map<std::pair<std::string, unsigned>, uint64_t>;

/// The value of attribute \p Name in one line of XML.
StringRef attribute(StringRef Line, StringRef Name) {
  size_t At = Line.find((" " + Name + "=\"").str());
  if (At == StringRef::npos)
    return StringRef();
  return Line.drop_front(At + Name.size() + 3).take_until([](char C) { return C == '"'; });
}

/// The line hits of a Cobertura report, (package:file, line) -> hits, from the classes' lines
/// (not their methods'), added up over classes: a lambda's line is its method's class's in
/// coverlet's reports, its own class's in weft's. Files are taken whole (each report has its own
/// <source>).
LineHits coberturaLines(StringRef Xml) {
  LineHits Out;
  std::string Source, Package, File;
  bool InMethods = false;
  for (StringRef Line : split(Xml, '\n')) {
    Line = Line.trim();
    if (Line.startswith("<source>"))
      Source = Line.drop_front(8).take_until([](char C) { return C == '<'; }).str();
    if (Line.startswith("<package "))
      Package = attribute(Line, "name").str();
    if (Line.startswith("<class ")) {
      SmallString<256> Path(Source);
      sys::path::append(Path, attribute(Line, "filename"));
      File = std::string(Path);
    }
    if (Line.startswith("<methods"))
      InMethods = !Line.endswith("/>");
    if (Line.startswith("</methods>"))
      InMethods = false;
    unsigned Number;
    uint64_t Hits;
    if (!InMethods && Line.startswith("<line ") &&
        !attribute(Line, "number").getAsInteger(10, Number) &&
        !attribute(Line, "hits").getAsInteger(10, Hits))
      Out[{Package + ":" + File, Number}] += Hits;
  }
  return Out;
}

/// What differs between two line maps, one line each, for a failure message.
std::string differences(const LineHits &Weft, const LineHits &Coverlet) {
  std::string Out;
  for (const auto &[Line, Hits] : Coverlet) {
    auto It = Weft.find(Line);
    std::string Name = "  " + Line.first + ":" + std::to_string(Line.second);
    if (It == Weft.end())
      Out += Name + ": only coverlet's (" + std::to_string(Hits) + ")\n";
    else if (It->second != Hits)
      Out += Name + ": weft " + std::to_string(It->second) + ", coverlet " + std::to_string(Hits) +
             "\n";
  }
  for (const auto &[Line, Hits] : Weft)
    if (!Coverlet.count(Line))
      Out += "  " + Line.first + ":" + std::to_string(Line.second) + ": only weft's (" +
             std::to_string(Hits) + ")\n";
  return Out;
}

bool hasFile(const LineHits &L, StringRef Suffix) {
  return llvm::any_of(L, [&](const auto &E) { return StringRef(E.first.first).endswith(Suffix); });
}

class PackageOptions : public ::testing::Test {
protected:
  static std::string Root, Dir;

  static void SetUpTestSuite() {
    Root = test::scratchDir("package-options");
    Dir = Root + "/Sample";
    ASSERT_FALSE(sys::fs::create_directories(Dir));
    SmallString<256> From(test::sourceDir());
    sys::path::append(From, "corpus", "WovenSolution");
    test::CommandResult R = test::run("cp", {"-R", std::string(From) + "/.", Dir});
    ASSERT_EQ(R.ExitCode, 0) << R.Err;
    // The library's own weave off, so that the tools measure the compiler's code (without
    // WeftEnabled=false, which would take the package's collector away too).
    ASSERT_FALSE(sys::fs::remove(path("Greeter/weft.json")));
    ASSERT_FALSE(sys::fs::create_directories(path("Greeter/Generated")));
    ASSERT_FALSE(sys::fs::create_directories(path("Greeter.Tests2")));
    ASSERT_TRUE(test::writeFile(path("Greeter/Options.cs"), OptionsSource));
    ASSERT_TRUE(test::writeFile(path("Greeter/Generated/Made.cs"), MadeSource));
    ASSERT_TRUE(test::writeFile(path("Greeter.Tests/OptionsTests.cs"), TestsSource));
    ASSERT_TRUE(test::writeFile(path("Greeter.Tests2/Greeter.Tests2.csproj"), SecondProject));
    ASSERT_TRUE(test::writeFile(path("Greeter.Tests2/MoreTests.cs"), SecondTests));
    std::string Sln = test::readFile(path("WovenSolution.slnx"));
    size_t End = Sln.find("</Solution>");
    ASSERT_NE(End, std::string::npos);
    Sln.insert(End, "  <Project Path=\"Greeter.Tests2/Greeter.Tests2.csproj\" />\n");
    ASSERT_TRUE(test::writeFile(path("WovenSolution.slnx"), Sln));
  }

  static std::string path(StringRef Relative) { return Dir + "/" + Relative.str(); }

  /// `dotnet test` of a project (or the solution) of the sample, with the package; the output
  /// and error together.
  static test::CommandResult dotnetTest(StringRef Project, std::vector<std::string> More = {}) {
    std::vector<std::string> Args = test::packageRestoreArgs(WEFT_PACKAGE_VERSION);
    Args.insert(Args.begin(), {"test", path(Project), "-nologo"});
    Args.insert(Args.end(), More.begin(), More.end());
    // The woven code writes its hits as the test host exits, and VSTest kills a test host that
    // has not exited 100 ms after the session ends (coverlet.msbuild's hits are written the
    // same way): on a busy machine it must be given the time to.
    test::CommandResult R =
        test::run("dotnet", Args, {"VSTEST_TESTHOST_SHUTDOWN_TIMEOUT=60000"}, 900);
    R.Out += R.Err;
    return R;
  }
};

std::string PackageOptions::Root, PackageOptions::Dir;

constexpr const char *Tests = "Greeter.Tests/Greeter.Tests.csproj";

TEST_F(PackageOptions, OptionsLeaveOutWhatCoverletsLeaveOut) {
  // The same options, in each tool's spelling; %2c is a comma to MSBuild.
  std::string Exclude = "[*]Sample.Greeter.Options.FilteredOut%2c[Probes]*";
  test::CommandResult R = dotnetTest(
      Tests, {"-p:WeftCoverage=true", "-p:WeftExclude=" + Exclude,
              "-p:WeftExcludeByAttribute=Obsolete", "-p:WeftExcludeByFile=**/Generated/*.cs",
              "-p:WeftSkipAutoProps=true", "-p:WeftIncludeTestAssembly=true", "-p:WeftThreshold=10",
              "-p:WeftCoverageDirectory=" + path("weft/")});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  EXPECT_EQ(StringRef(R.Out).count("weft: coverage woven into Greeter.dll, Probes.dll, "
                                   "Greeter.Tests.dll"),
            2u)
      << R.Out;
  LineHits Weft = coberturaLines(test::readFile(path("weft/coverage.cobertura.xml")));

  R = dotnetTest(Tests, {"-p:CollectCoverage=true", "-p:CoverletOutputFormat=cobertura",
                         "-p:CoverletOutput=" + path("coverlet/"), "-p:Exclude=" + Exclude,
                         "-p:ExcludeByAttribute=Obsolete", "-p:ExcludeByFile=**/Generated/*.cs",
                         "-p:SkipAutoProps=true", "-p:IncludeTestAssembly=true"});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  LineHits Coverlet;
  for (StringRef Tfm : {"net10.0", "net9.0"})
    for (const auto &[Line, Hits] : coberturaLines(
             test::readFile(path(("coverlet/coverage." + Tfm + ".cobertura.xml").str()))))
      Coverlet[Line] += Hits;

  EXPECT_EQ(differences(Weft, Coverlet), "");
  // The options did act: what they name is in neither report, the rest is.
  std::string Options = "Greeter:" + path("Greeter/Options.cs");
  std::string Source = OptionsSource;
  auto LineOf = [&](StringRef Text) {
    size_t At = Source.find(Text.str());
    EXPECT_NE(At, std::string::npos) << Text.str();
    return unsigned(StringRef(Source).take_front(At).count('\n') + 1);
  };
  for (StringRef Gone :
       {"Func<int, int> twice", "int Local(int z)", "await Task.Yield();", "yield return 1;",
        "get { return 3; }", "public int Old()", "public int Get() => 5;", "public int Get() => 6;",
        "public int Get() => 7;", "public string Name { get; set; }"})
    EXPECT_FALSE(Weft.count({Options, LineOf(Gone)})) << Gone.str();
  for (StringRef Kept : {"public int Sum()", "Func<int, int> add", "private readonly List<int>"})
    EXPECT_TRUE(Weft.count({Options, LineOf(Kept)})) << Kept.str();
  EXPECT_FALSE(hasFile(Weft, "Made.cs"));
  EXPECT_FALSE(hasFile(Weft, "Hooks.cs"));
  EXPECT_TRUE(hasFile(Weft, "Greeting.cs"));
  EXPECT_TRUE(hasFile(Weft, "OptionsTests.cs")) << "the test assembly is measured too";
}

TEST_F(PackageOptions, ThresholdNotMetFailsTheBuildAfterTheReport) {
  test::CommandResult R = dotnetTest(Tests, {"-p:WeftCoverage=true", "-p:WeftThreshold=100",
                                             "-p:WeftThresholdType=line",
                                             "-p:WeftCoverageDirectory=" + path("threshold/")});
  EXPECT_NE(R.ExitCode, 0) << R.Out;
  EXPECT_TRUE(StringRef(R.Out).contains("error WEFT0008: line coverage of module 'Greeter' is "))
      << R.Out;
  EXPECT_TRUE(StringRef(R.Out).contains("below the threshold of 100%")) << R.Out;
  EXPECT_FALSE(StringRef(R.Out).contains("MSB3073")) << R.Out;
  EXPECT_TRUE(sys::fs::exists(path("threshold/coverage.cobertura.xml")));
}

TEST_F(PackageOptions, TestProjectsSharingAFolderOrMergedMakeOneReport) {
  // Each project alone.
  test::CommandResult R =
      dotnetTest(Tests, {"-p:WeftCoverage=true", "--results-directory", path("first")});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  R = dotnetTest("Greeter.Tests2/Greeter.Tests2.csproj",
                 {"-p:WeftCoverage=true", "--results-directory", path("second")});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  LineHits First = coberturaLines(test::readFile(path("first/coverage.cobertura.xml")));
  LineHits Second = coberturaLines(test::readFile(path("second/coverage.cobertura.xml")));
  LineHits Sum = First;
  for (const auto &[Line, Hits] : Second)
    Sum[Line] += Hits;
  ASSERT_GT(Second.size(), 0u);

  // Both at once from the solution, sharing the results folder.
  R = dotnetTest("WovenSolution.slnx",
                 {"-p:WeftCoverage=true", "--results-directory", path("both")});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  EXPECT_EQ(differences(coberturaLines(test::readFile(path("both/coverage.cobertura.xml"))), Sum),
            "");

  // The second project again, merged with the first's earlier run.
  R = dotnetTest("Greeter.Tests2/Greeter.Tests2.csproj",
                 {"-p:WeftCoverage=true", "--results-directory", path("merged"),
                  "-p:WeftMergeWith=" + path("first")});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  EXPECT_EQ(differences(coberturaLines(test::readFile(path("merged/coverage.cobertura.xml"))), Sum),
            "");
  R = dotnetTest("Greeter.Tests2/Greeter.Tests2.csproj",
                 {"-p:WeftCoverage=true", "--results-directory", path("merged"),
                  "-p:WeftMergeWith=" + path("nowhere")});
  EXPECT_NE(R.ExitCode, 0);
  EXPECT_TRUE(StringRef(R.Out).contains("error WEFT0009: WeftMergeWith: '" + path("nowhere") +
                                        "' is no folder of weft coverage data"))
      << R.Out;
}

/// The report files a `--collect` run attached, under the results folder's <guid>/ folders.
std::vector<std::string> attachments(const std::string &Results, StringRef Name) {
  std::vector<std::string> Out;
  for (const std::string &F : test::filesUnder(Results, {Name}))
    Out.push_back(F);
  return Out;
}

TEST_F(PackageOptions, DataCollectorAttachesTheReportDotnetTestWouldWrite) {
  // The same tests measured by the targets (both frameworks in one report) ...
  test::CommandResult R =
      dotnetTest(Tests, {"-p:WeftCoverage=true", "--results-directory", path("targets")});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  LineHits Targets = coberturaLines(test::readFile(path("targets/coverage.cobertura.xml")));
  // ... and by the data collector that `dotnet new xunit` projects name, from the package in
  // coverlet.collector's place: one attachment per framework's run.
  R = dotnetTest(Tests,
                 {"--collect", "XPlat Code Coverage", "--results-directory", path("collected")});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  EXPECT_FALSE(StringRef(R.Out).contains("weft: coverage not measured")) << R.Out;
  std::vector<std::string> Reports = attachments(path("collected"), "coverage.cobertura.xml");
  ASSERT_EQ(Reports.size(), 2u) << R.Out;
  LineHits Collected;
  for (const std::string &Report : Reports) {
    EXPECT_EQ(sys::path::filename(sys::path::parent_path(Report)).size(), 36u)
        << Report << ": in a <guid> folder of its own";
    for (const auto &[Line, Hits] : coberturaLines(test::readFile(Report)))
      Collected[Line] += Hits;
  }
  EXPECT_EQ(differences(Collected, Targets), "");
  EXPECT_TRUE(hasFile(Collected, "Greeting.cs"));
  // The assemblies under test are the compiler's again.
  for (StringRef Tfm : {"net10.0", "net9.0"}) {
    std::string Dll = path(("artifacts/bin/Greeter.Tests/debug_" + Tfm + "/Greeter.dll").str());
    test::CommandResult Dump = test::run(test::weftTool(), {"dump", Dll});
    EXPECT_FALSE(StringRef(Dump.Out).contains("<weft>")) << Dll;
  }

  // The run settings' options, under coverlet.collector's names.
  R = dotnetTest(Tests, {"--collect", "XPlat Code Coverage", "--results-directory",
                         path("collected-lcov"), "--",
                         "DataCollectionRunSettings.DataCollectors.DataCollector.Configuration."
                         "Format=lcov",
                         "DataCollectionRunSettings.DataCollectors.DataCollector.Configuration."
                         "Exclude=[Probes]*"});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  Reports = attachments(path("collected-lcov"), "coverage.info");
  ASSERT_EQ(Reports.size(), 2u) << R.Out;
  std::string Lcov = test::readFile(Reports.front());
  EXPECT_TRUE(StringRef(Lcov).contains("Greeting.cs")) << Lcov;
  EXPECT_FALSE(StringRef(Lcov).contains("Hooks.cs")) << Lcov;
}

TEST_F(PackageOptions, DeterministicBuildsReportTheSourcesWhereTheyAre) {
  // The whole sample mapped to /_/, as a repository's root is in a CI build.
  std::string Map = "-p:PathMap=" + Dir + "/=/_/";
  test::CommandResult R = dotnetTest(
      Tests, {"-p:WeftCoverage=true", Map, "--results-directory", path("mapped-here")});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  LineHits Here = coberturaLines(test::readFile(path("mapped-here/coverage.cobertura.xml")));
  R = dotnetTest(Tests, {"-p:WeftCoverage=true", Map, "-p:WeftDeterministicReport=true",
                         "--results-directory", path("mapped-kept")});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  LineHits Kept = coberturaLines(test::readFile(path("mapped-kept/coverage.cobertura.xml")));
  ASSERT_TRUE(hasFile(Here, "Greeting.cs"));
  LineHits Undone;
  for (const auto &[Line, Hits] : Kept) {
    auto [Package, File] = StringRef(Line.first).split(':');
    EXPECT_TRUE(File.startswith("/_/")) << File.str() << ": as the PDB names it";
    std::string Local = Package.str() + ":" + Dir + "/" + File.drop_front(3).str();
    Undone[{Local, Line.second}] += Hits;
  }
  for (const auto &[Line, Hits] : Here)
    EXPECT_TRUE(StringRef(Line.first).contains(":" + Dir + "/")) << Line.first;
  EXPECT_EQ(differences(Here, Undone), "");

  // The data collector likewise, and its run setting under coverlet.collector's name.
  for (bool Deterministic : {false, true}) {
    std::string Results = path(Deterministic ? "mapped-collected-kept" : "mapped-collected");
    std::vector<std::string> Args = {Map, "--collect", "XPlat Code Coverage",
                                     "--results-directory", Results};
    if (Deterministic)
      Args.insert(Args.end(), {"--", "DataCollectionRunSettings.DataCollectors.DataCollector."
                                     "Configuration.DeterministicReport=true"});
    R = dotnetTest(Tests, Args);
    ASSERT_EQ(R.ExitCode, 0) << R.Out;
    std::vector<std::string> Reports = attachments(Results, "coverage.cobertura.xml");
    ASSERT_EQ(Reports.size(), 2u) << R.Out;
    for (const std::string &Report : Reports) {
      LineHits Collected = coberturaLines(test::readFile(Report));
      EXPECT_TRUE(hasFile(Collected, "Greeting.cs")) << Report;
      for (const auto &[Line, Hits] : Collected)
        EXPECT_EQ(StringRef(Line.first).contains(":/_/"), Deterministic) << Line.first;
    }
  }
}

} // namespace
