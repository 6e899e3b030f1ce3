//===- tests/package/PackageTest.cpp - The NuGet package in dotnet build --===//
//
// corpus/WovenSolution built as a user builds it: `dotnet build` with the Weft package that
// package/pack.sh made (the package.pack step), restored from a local folder into the packages
// folder the suite's samples share (tests/support/Env.h). The library (two target frameworks) and the program are woven on
// every build and run with their probes; an unchanged build weaves nothing, a changed spec or
// probe assembly weaves again, a spec error fails the build with a WEFT code at the spec's line;
// `dotnet test -p:WeftCoverage=true` (the tests built for two target frameworks) makes one report
// with the same lines and branch outcomes, each with the same hits, as coverlet.msbuild's two
// added up, and leaves no woven file behind.
//
// The sample lies in a folder whose name a shell would run (`$(touch ...)`, backticks), and the
// weaving cache's folder adds a quote and a `;`: every value reaches weft whole, and nothing is
// run. (The SDK itself builds no project whose path holds a quote, nor restores packages to a
// folder whose name holds `$(`: the packages folder is the suite's.)
//
//===----------------------------------------------------------------------===//
#include "tests/support/CacheServer.h"
#include "tests/support/CoverageFigures.h"
#include "tests/support/Env.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <gtest/gtest.h>
#include <map>
#include <tuple>

using namespace llvm;
using namespace weft;

namespace {

class Package : public ::testing::Test {
protected:
  static std::string Root; // the test's scratch folder
  static std::string Dir;  // the sample's copy

  static void SetUpTestSuite() {
    Root = test::scratchDir("package-sample");
    Dir = Root + "/Sample $(touch weft-pwned) `touch weft-pwned`";
    ASSERT_FALSE(sys::fs::create_directories(Dir));
    SmallString<256> From(test::sourceDir());
    sys::path::append(From, "corpus", "WovenSolution");
    test::CommandResult R = test::run("cp", {"-R", std::string(From) + "/.", Dir});
    ASSERT_EQ(R.ExitCode, 0) << R.Err;
  }

  static std::string path(StringRef Relative) { return Dir + "/" + Relative.str(); }

  /// `dotnet VERB` on the solution or a project of the sample, with the package restored from
  /// the test's folder; the output and error together.
  static test::CommandResult dotnet(std::string Verb, StringRef Project,
                                    std::vector<std::string> More = {}) {
    std::vector<std::string> Args = test::packageRestoreArgs(WEFT_PACKAGE_VERSION);
    Args.insert(Args.begin(), {Verb, path(Project), "-nologo"});
    Args.insert(Args.end(), More.begin(), More.end());
    // A busy machine's test host may take more than VSTest's 100 ms to exit and write its hits
    // (docs/msbuild.md): the setting users are told to give.
    test::CommandResult R =
        test::run("dotnet", Args, {"VSTEST_TESTHOST_SHUTDOWN_TIMEOUT=60000"}, 600);
    R.Out += R.Err;
    return R;
  }
  static test::CommandResult build(std::vector<std::string> More = {}) {
    return dotnet("build", "WovenSolution.slnx", std::move(More));
  }
  static std::string runApp() {
    test::CommandResult R = test::run("dotnet", {path("artifacts/bin/App/debug/App.dll")});
    EXPECT_EQ(R.ExitCode, 0) << R.Err;
    return R.Out;
  }
  static std::string dump(StringRef Dll) {
    return test::run(test::weftTool(), {"dump", path(Dll)}).Out;
  }
  static sys::TimePoint<> modified(StringRef Relative) {
    sys::fs::file_status St;
    EXPECT_FALSE(sys::fs::status(path(Relative), St)) << Relative;
    return St.getLastModificationTime();
  }
  static void edit(StringRef Relative, StringRef From, StringRef To) {
    std::string Text = test::readFile(path(Relative));
    size_t At = Text.find(From.str());
    ASSERT_NE(At, std::string::npos) << From;
    Text.replace(At, From.size(), To.str());
    ASSERT_TRUE(test::writeFile(path(Relative), Text));
  }
};

std::string Package::Root, Package::Dir;

const char *WovenOutput = "enter Sample.App.Program::Run\n"
                          "enter Sample.Greeter.Greeting::Shout\n"
                          "enter Sample.Greeter.Greeting::Hello\n"
                          "exit Sample.Greeter.Greeting::Hello\n"
                          "exit Sample.Greeter.Greeting::Shout\n"
                          "HELLO, WEFT!\n"
                          "enter Sample.Greeter.Greeting::Count\n"
                          "exit Sample.Greeter.Greeting::Count\n"
                          "1\n"
                          "exit Sample.App.Program::Run\n";

TEST_F(Package, BuildWeavesEachProjectAndTargetFrameworkThenNothingWhenUnchanged) {
  test::CommandResult R = build();
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  EXPECT_TRUE(StringRef(R.Out).contains("weft: woven App.dll")) << R.Out;
  EXPECT_EQ(StringRef(R.Out).count("weft: woven Greeter.dll"), 2u) << R.Out;
  EXPECT_EQ(runApp(), WovenOutput);
  // Both target frameworks' outputs are woven; nothing of weft is referenced.
  for (StringRef Tfm : {"net10.0", "net9.0"}) {
    std::string Text = dump(("artifacts/bin/Greeter/debug_" + Tfm + "/Greeter.dll").str());
    EXPECT_TRUE(StringRef(Text).contains(".assembly extern Probes")) << Tfm;
    EXPECT_TRUE(StringRef(Text).contains("'<weft>'.Woven")) << Tfm;
  }
  for (StringRef Dll : {"artifacts/bin/App/debug/App.dll", "artifacts/bin/App/debug/Greeter.dll"})
    for (StringRef Line : split(dump(Dll), '\n'))
      EXPECT_FALSE(Line.startswith(".assembly extern") && Line.contains_insensitive("weft"))
          << Dll << ": " << Line;

  sys::TimePoint<> Woven = modified("artifacts/obj/App/debug/weft/App.dll");
  R = build();
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  EXPECT_FALSE(StringRef(R.Out).contains("weft: woven")) << R.Out;
  EXPECT_EQ(modified("artifacts/obj/App/debug/weft/App.dll"), Woven);
  EXPECT_EQ(runApp(), WovenOutput);
}

TEST_F(Package, ChangedSpecOrProbeAssemblyWeavesAgain) {
  ASSERT_EQ(build().ExitCode, 0);
  // The program's exit probe turned off: only the program is woven again.
  edit("App/weft.json", "\"probe-type\": \"Sample.Probes.Hooks\"",
       "\"probe-type\": \"Sample.Probes.Hooks\", \"exit\": \"\"");
  test::CommandResult R = build();
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  EXPECT_TRUE(StringRef(R.Out).contains("weft: woven App.dll")) << R.Out;
  EXPECT_FALSE(StringRef(R.Out).contains("weft: woven Greeter.dll")) << R.Out;
  std::string Out = runApp();
  EXPECT_FALSE(StringRef(Out).contains("exit Sample.App.Program::Run")) << Out;
  EXPECT_TRUE(StringRef(Out).contains("exit Sample.Greeter.Greeting::Count")) << Out;

  // A changed probe assembly (a file only the last weave knew it read) weaves both again.
  edit("Probes/Hooks.cs", "$\"enter {methodName}\"", "$\"> {methodName}\"");
  R = build();
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  EXPECT_TRUE(StringRef(R.Out).contains("weft: woven App.dll")) << R.Out;
  EXPECT_EQ(StringRef(R.Out).count("weft: woven Greeter.dll"), 2u) << R.Out;
  EXPECT_TRUE(StringRef(runApp()).startswith("> Sample.App.Program::Run\n"));
  edit("Probes/Hooks.cs", "$\"> {methodName}\"", "$\"enter {methodName}\"");
  edit("App/weft.json", ", \"exit\": \"\"", "");
  ASSERT_EQ(build().ExitCode, 0);
  EXPECT_EQ(runApp(), WovenOutput);
}

TEST_F(Package, SpecErrorFailsTheBuildWithACodeAtItsLine) {
  std::string Spec = test::readFile(path("App/weft.json"));
  edit("App/weft.json", "\"entry-exit\"", "\"entry-exits\"");
  test::CommandResult R = build();
  EXPECT_NE(R.ExitCode, 0);
  // The pass is named in rules[0], which starts on line 4 of the spec, column 5.
  EXPECT_TRUE(StringRef(R.Out).contains(path("App/weft.json") +
                                        "(4,5): error WEFT0001: rules[0] 'program': unknown pass "
                                        "'entry-exits'"))
      << R.Out;
  EXPECT_FALSE(StringRef(R.Out).contains("MSB3073")) << R.Out;
  ASSERT_TRUE(test::writeFile(path("App/weft.json"), Spec));
  R = build();
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  EXPECT_EQ(runApp(), WovenOutput);
}

TEST_F(Package, CleanThenBuildAndTurningWeavingOffAndOn) {
  ASSERT_EQ(dotnet("clean", "WovenSolution.slnx").ExitCode, 0);
  EXPECT_FALSE(sys::fs::exists(path("artifacts/obj/App/debug/weft/App.dll")));
  test::CommandResult R = build();
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  EXPECT_EQ(runApp(), WovenOutput);
  R = build({"-p:WeftEnabled=false"});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  EXPECT_EQ(runApp(), "HELLO, WEFT!\n1\n");
  // The build without weft took the woven files away as its own leftovers (IncrementalClean):
  // weaving is on again, so they are made again.
  R = build();
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  EXPECT_TRUE(StringRef(R.Out).contains("weft: woven App.dll")) << R.Out;
  EXPECT_EQ(runApp(), WovenOutput);
}

TEST_F(Package, WeavingCacheGivesTheOutputAfterAClean) {
  // A quote and a `;` (%3B to MSBuild's command line) besides the sample's own `$(...)` and
  // backticks; the options are split by the response file's rules. The folder is its group's
  // too, which weft takes only as a cache shared on purpose (WeftCacheShared).
  std::string Cache = path("cache it's ; `touch weft-pwned`");
  ASSERT_FALSE(sys::fs::create_directories(Cache));
  ASSERT_FALSE(sys::fs::setPermissions(Cache, sys::fs::perms(0770)));
  std::vector<std::string> Cached = {"-p:WeftCacheDir=" + path("cache it's %3B `touch weft-pwned`"),
                                     "-p:WeftCacheShared=true",
                                     "-p:WeftWeaveOptions='-v' --threads '2'"};
  ASSERT_EQ(dotnet("clean", "WovenSolution.slnx").ExitCode, 0);
  test::CommandResult R = build(Cached);
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  EXPECT_FALSE(StringRef(R.Out).contains("taken from the weaving cache")) << R.Out;
  ASSERT_EQ(dotnet("clean", "WovenSolution.slnx").ExitCode, 0);
  R = build(Cached);
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  EXPECT_EQ(StringRef(R.Out).count("taken from the weaving cache"), 3u) << R.Out;
  EXPECT_EQ(runApp(), WovenOutput);
  // A manifest and an entry for each of the three projects' assemblies.
  EXPECT_EQ(test::filesUnder(Cache + "/ac", {""}).size(), 6u);
  EXPECT_EQ(test::filesUnder(Root, {"weft-pwned"}), std::vector<std::string>{});
}

// Two CI runners with the same commit in different folders and one remote cache (nginx on
// loopback), set in Directory.Build.props as a team sets it, with the deterministic build CI
// builds are: the second runner weaves nothing, every woven file comes from the server (the
// targets say so), and its outputs are the first's, byte for byte.
TEST_F(Package, RemoteCacheServesASecondCheckout) {
  test::CacheServer Server(Root + "/cache-server");
  // One commit (of the sample, with the team's Directory.Build.props), cloned twice.
  std::string Origin = Root + "/origin";
  ASSERT_FALSE(sys::fs::create_directories(Origin));
  SmallString<256> From(test::sourceDir());
  sys::path::append(From, "corpus", "WovenSolution");
  test::CommandResult R = test::run("cp", {"-R", std::string(From) + "/.", Origin});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  std::string Props = test::readFile(Origin + "/Directory.Build.props");
  size_t At = Props.find("  </PropertyGroup>");
  ASSERT_NE(At, std::string::npos);
  Props.insert(At, "    <WeftRemoteCache>" + Server.url() +
                       "</WeftRemoteCache>\n    <ContinuousIntegrationBuild>true"
                       "</ContinuousIntegrationBuild>\n");
  ASSERT_TRUE(test::writeFile(Origin + "/Directory.Build.props", Props));
  std::vector<std::string> Git = {"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z",
                                  "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z",
                                  "GIT_AUTHOR_NAME=ci", "GIT_AUTHOR_EMAIL=ci@example.com",
                                  "GIT_COMMITTER_NAME=ci", "GIT_COMMITTER_EMAIL=ci@example.com"};
  for (std::vector<std::string> Args :
       {std::vector<std::string>{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "app"}}) {
    Args.insert(Args.begin(), {"-C", Origin});
    R = test::run("git", Args, Git);
    ASSERT_EQ(R.ExitCode, 0) << R.Err;
  }
  std::string Checkouts[] = {Root + "/runner-a/app", Root + "/runner-b/builds/app"};
  std::string Out[2];
  for (int I = 0; I < 2; ++I) {
    const std::string &C = Checkouts[I];
    R = test::run("git", {"clone", "-q", Origin, C});
    ASSERT_EQ(R.ExitCode, 0) << R.Err;
    // Where CI clones from: the same for both (Source Link writes it into the PDBs).
    R = test::run("git", {"-C", C, "remote", "set-url", "origin",
                          "https://github.com/weft-example/app.git"});
    ASSERT_EQ(R.ExitCode, 0) << R.Err;
    std::vector<std::string> Args = test::packageRestoreArgs(WEFT_PACKAGE_VERSION);
    Args.insert(Args.begin(), {"build", C + "/WovenSolution.slnx", "-nologo"});
    R = test::run("dotnet", Args, {}, 600);
    ASSERT_EQ(R.ExitCode, 0) << R.Out << R.Err;
    Out[I] = R.Out;
  }
  EXPECT_EQ(StringRef(Out[0]).count("weft: woven "), 3u) << Out[0];
  EXPECT_EQ(StringRef(Out[0]).count("(taken from"), 0u) << Out[0];
  EXPECT_EQ(StringRef(Out[1]).count("weft: woven "), 3u) << Out[1];
  EXPECT_EQ(StringRef(Out[1]).count("(taken from the remote cache)"), 3u) << Out[1];
  unsigned Compared = 0;
  for (const std::string &A :
       test::filesUnder(Checkouts[0] + "/artifacts/obj", {".dll", ".pdb"})) {
    if (!StringRef(A).contains("/weft/"))
      continue;
    std::string B = Checkouts[1] + A.substr(Checkouts[0].size());
    EXPECT_TRUE(test::readFile(A) == test::readFile(B)) << B << " differs from " << A;
    ++Compared;
  }
  EXPECT_GE(Compared, 6u); // three assemblies and their PDBs
  R = test::run("dotnet", {Checkouts[1] + "/artifacts/bin/App/debug/App.dll"});
  EXPECT_EQ(R.Out, WovenOutput);
}

// The package carries weft for linux-x64, linux-arm64 and win-x64, and its targets pick the
// machine's. On a machine it has none for (a project of one file here, told it runs on macOS on
// Arm64), the build fails at once with WEFT0010 naming the machine and the way out, never with
// an exec error; a WeftExe that names no file is WEFT0011; WeftEnabled=false builds the project
// unwoven, and WeftExe naming a weft (this machine's) weaves it.
TEST_F(Package, AMachineWithoutWeftFailsWithTheWayOut) {
  std::string Tiny = Root + "/tiny";
  ASSERT_FALSE(sys::fs::create_directories(Tiny));
  ASSERT_TRUE(test::writeFile(Tiny + "/Tiny.csproj", R"(<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup><OutputType>Exe</OutputType><TargetFramework>net10.0</TargetFramework></PropertyGroup>
  <ItemGroup><PackageReference Include="Weft" Version=")" WEFT_PACKAGE_VERSION
                                                     R"(" PrivateAssets="all" /></ItemGroup>
</Project>
)"));
  ASSERT_TRUE(test::writeFile(Tiny + "/Program.cs", "System.Console.WriteLine(\"tiny\");\n"));
  ASSERT_TRUE(test::writeFile(Tiny + "/weft.json", R"({"version": 1, "rules": [
    {"match": {"assembly": "Tiny"}, "passes": ["single-ret"]}]})"));
  auto Build = [&](std::vector<std::string> More) {
    std::vector<std::string> Args = test::packageRestoreArgs(WEFT_PACKAGE_VERSION);
    Args.insert(Args.begin(), {"build", Tiny + "/Tiny.csproj", "-nologo", "-p:WeftHostOS=macOS",
                               "-p:WeftHostArchitecture=Arm64"});
    Args.insert(Args.end(), More.begin(), More.end());
    test::CommandResult R = test::run("dotnet", Args, {}, 600);
    R.Out += R.Err;
    return R;
  };
  test::CommandResult R = Build({});
  EXPECT_NE(R.ExitCode, 0);
  EXPECT_TRUE(StringRef(R.Out).contains(
      "error WEFT0010: the Weft package has no weft for this machine (macOS Arm64): it carries "
      "linux-x64, linux-arm64 and win-x64. Build without weaving with -p:WeftEnabled=false, or "
      "set WeftExe to a weft built for this machine"))
      << R.Out;
  EXPECT_FALSE(StringRef(R.Out).contains("MSB3073")) << R.Out;
  EXPECT_FALSE(StringRef(R.Out).contains("weft: woven")) << R.Out;

  R = Build({"-p:WeftExe=" + Root + "/no-weft-here"});
  EXPECT_NE(R.ExitCode, 0);
  EXPECT_TRUE(StringRef(R.Out).contains("error WEFT0011: WeftExe names '" + Root +
                                        "/no-weft-here', which does not exist"))
      << R.Out;

  R = Build({"-p:WeftEnabled=false"});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  EXPECT_FALSE(StringRef(R.Out).contains("weft: woven")) << R.Out;
  R = Build({"-p:WeftExe=" + test::weftTool()});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  EXPECT_TRUE(StringRef(R.Out).contains("weft: woven Tiny.dll")) << R.Out;
  std::string Dump =
      test::run(test::weftTool(), {"dump", Tiny + "/bin/Debug/net10.0/Tiny.dll"}).Out;
  EXPECT_TRUE(StringRef(Dump).contains("'<weft>'.Woven")) << Dump.substr(0, 2000);
}

// Every platform's weft in the package weaves the sample to the same bytes, assemblies and PDBs,
// as this machine's. WEFT_TEST_RUN_LINUX_ARM64 and WEFT_TEST_RUN_WIN_X64 say how this machine
// runs the other platforms' executables (qemu-aarch64 with the arm64 sysroot, wine64):
// tests/CMakeLists.txt sets them for the platforms ./dev test-targets builds.
TEST_F(Package, EveryPlatformsWeftWeavesTheSameBytes) {
  struct Other {
    std::string Rid, Exe, Runner;
  };
  std::vector<Other> Others;
  for (auto [Rid, Exe, Variable] : {std::tuple("linux-arm64", "weft", "WEFT_TEST_RUN_LINUX_ARM64"),
                                    std::tuple("win-x64", "weft.exe", "WEFT_TEST_RUN_WIN_X64")})
    if (Optional<std::string> Runner = sys::Process::GetEnv(Variable); Runner && !Runner->empty())
      Others.push_back({Rid, Exe, *Runner});
  if (Others.empty())
    GTEST_SKIP() << "no other platform's runner given (./dev test-targets gives them)";

  const char *Woven[] = {"artifacts/obj/App/debug/weft/App.dll",
                         "artifacts/obj/App/debug/weft/App.pdb",
                         "artifacts/obj/Greeter/debug_net10.0/weft/Greeter.dll",
                         "artifacts/obj/Greeter/debug_net10.0/weft/Greeter.pdb",
                         "artifacts/obj/Greeter/debug_net9.0/weft/Greeter.dll",
                         "artifacts/obj/Greeter/debug_net9.0/weft/Greeter.pdb"};
  ASSERT_EQ(dotnet("clean", "WovenSolution.slnx").ExitCode, 0);
  ASSERT_EQ(build().ExitCode, 0);
  std::map<std::string, std::string> Native;
  for (const char *F : Woven)
    Native[F] = test::readFile(path(F));
  for (const Other &O : Others) {
    std::string Exe =
        test::packagesDir() + "/weft/" WEFT_PACKAGE_VERSION "/tools/" + O.Rid + "/" + O.Exe;
    ASSERT_TRUE(sys::fs::exists(Exe)) << "the package carries no " << O.Rid << " weft";
    std::string Wrapper = Root + "/weft-" + O.Rid;
    ASSERT_TRUE(
        test::writeFile(Wrapper, "#!/bin/sh\nexec " + O.Runner + " '" + Exe + "' \"$@\"\n"));
    ASSERT_FALSE(sys::fs::setPermissions(Wrapper, sys::fs::perms(0755)));
    ASSERT_EQ(dotnet("clean", "WovenSolution.slnx").ExitCode, 0);
    test::CommandResult R = build({"-p:WeftExe=" + Wrapper});
    ASSERT_EQ(R.ExitCode, 0) << O.Rid << ": " << R.Out;
    EXPECT_TRUE(StringRef(R.Out).contains("weft: woven App.dll")) << R.Out;
    for (const char *F : Woven)
      EXPECT_TRUE(test::readFile(path(F)) == Native[F]) << O.Rid << "'s weft wove another " << F;
    EXPECT_EQ(runApp(), WovenOutput) << O.Rid;
  }
  ASSERT_EQ(dotnet("clean", "WovenSolution.slnx").ExitCode, 0);
  ASSERT_EQ(build().ExitCode, 0);
}

/// The line hits of a Cobertura report: (file, line) -> hits, from the methods' lines.
std::map<std::pair<std::string, unsigned>, uint64_t> coberturaLines(StringRef Xml) {
  std::map<std::pair<std::string, unsigned>, uint64_t> Out;
  std::string File;
  auto Attribute = [](StringRef Line, StringRef Name) {
    size_t At = Line.find((" " + Name + "=\"").str());
    if (At == StringRef::npos)
      return StringRef();
    StringRef Rest = Line.drop_front(At + Name.size() + 3);
    return Rest.take_until([](char C) { return C == '"'; });
  };
  for (StringRef Line : split(Xml, '\n')) {
    Line = Line.trim();
    if (Line.startswith("<class "))
      File = Attribute(Line, "filename").str();
    unsigned Number;
    uint64_t Hits;
    if (Line.startswith("<line ") && !Attribute(Line, "number").getAsInteger(10, Number) &&
        !Attribute(Line, "hits").getAsInteger(10, Hits))
      Out[{File, Number}] = Hits;
  }
  return Out;
}

TEST_F(Package, CoverageInDotnetTestMatchesCoverletAndLeavesNothingWoven) {
  // The library's own weave is off, so that both tools measure the compiler's code.
  test::CommandResult R = dotnet("test", "Greeter.Tests/Greeter.Tests.csproj",
                                 {"-p:WeftEnabled=false", "-p:WeftCoverage=true"});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  EXPECT_EQ(StringRef(R.Out).count("weft: coverage woven into Greeter.dll, Probes.dll"), 2u)
      << R.Out;
  EXPECT_EQ(StringRef(R.Out).count("weft: coverage report"), 1u) << R.Out;
  std::string Report = test::readFile(path("Greeter.Tests/TestResults/coverage.cobertura.xml"));
  ASSERT_FALSE(Report.empty()) << R.Out;
  // The assemblies under test are the compiler's again.
  for (StringRef Tfm : {"net10.0", "net9.0"})
    for (StringRef Dll : {"Greeter.dll", "Probes.dll", "Greeter.Tests.dll"}) {
      std::string File = ("artifacts/bin/Greeter.Tests/debug_" + Tfm + "/" + Dll).str();
      ASSERT_TRUE(sys::fs::exists(path(File))) << File;
      EXPECT_FALSE(StringRef(dump(File)).contains("<weft>")) << File;
    }

  // LCOV, OpenCover and coverlet's JSON at once (the list quoted, as MSBuild's -p needs a comma
  // to be), from the tests as built (dotnet test --no-build).
  R = dotnet("test", "Greeter.Tests/Greeter.Tests.csproj",
             {"--no-build", "-p:WeftEnabled=false", "-p:WeftCoverage=true",
              "-p:WeftCoverageFormat=\"lcov,opencover,json\""});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  EXPECT_TRUE(StringRef(test::readFile(path("Greeter.Tests/TestResults/coverage.opencover.xml")))
                  .contains("<ModuleName>Greeter</ModuleName>"));
  EXPECT_TRUE(StringRef(test::readFile(path("Greeter.Tests/TestResults/coverage.json")))
                  .contains("\"Greeter.dll\": {"));
  // coverlet reads weft's JSON: merged into its own (MergeWith), weft's methods are coverlet's
  // (named alike), each once, their hits added to those of coverlet's run. (Built again: the
  // project references coverlet.msbuild only with CollectCoverage.)
  R = dotnet("test", "Greeter.Tests/Greeter.Tests.csproj",
             {"-p:WeftEnabled=false", "-p:CollectCoverage=true", "-p:CoverletOutputFormat=json",
              "-p:CoverletOutput=" + path("merged/"),
              "-p:MergeWith=" + path("Greeter.Tests/TestResults/coverage.json")});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  std::string Merged = test::readFile(path("merged/coverage.net10.0.json"));
  constexpr StringRef Shout = "\"System.String Sample.Greeter.Greeting::Shout(System.String)\": {";
  EXPECT_TRUE(
      StringRef(test::readFile(path("Greeter.Tests/TestResults/coverage.json"))).contains(Shout));
  EXPECT_EQ(StringRef(Merged).count("::Shout("), 1u) << Merged;
  EXPECT_TRUE(StringRef(Merged).contains(Shout)) << Merged;
  std::string Lcov = test::readFile(path("Greeter.Tests/TestResults/coverage.info"));
  EXPECT_TRUE(StringRef(Lcov).contains("SF:" + path("Greeter/Greeting.cs") + "\n")) << Lcov;
  EXPECT_TRUE(StringRef(Lcov).contains("\nDA:17,14\n")) << Lcov; // foreach: 7 runs a framework

  R = dotnet("test", "Greeter.Tests/Greeter.Tests.csproj",
             {"-p:WeftEnabled=false", "-p:CollectCoverage=true",
              "-p:CoverletOutputFormat=cobertura%2cjson",
              "-p:CoverletOutput=" + path("coverlet/")});
  ASSERT_EQ(R.ExitCode, 0) << R.Out;
  // weft's one report holds both target frameworks' runs; coverlet writes one per framework.
  auto Weft = coberturaLines(Report);
  std::map<std::pair<std::string, unsigned>, uint64_t> Coverlet;
  for (StringRef Tfm : {"net10.0", "net9.0"})
    for (const auto &[Line, Hits] : coberturaLines(
             test::readFile(path(("coverlet/coverage." + Tfm + ".cobertura.xml").str()))))
      Coverlet[Line] += Hits;
  // The same lines, each hit as often.
  std::string OnlyWeft, OnlyCoverlet, Differ;
  for (const auto &[Line, Hits] : Coverlet) {
    auto It = Weft.find(Line);
    std::string Name = "  " + Line.first + ":" + std::to_string(Line.second);
    if (It == Weft.end())
      OnlyCoverlet += Name + "\n";
    else if (It->second != Hits)
      Differ += Name + ": weft " + std::to_string(It->second) + ", coverlet " +
                std::to_string(Hits) + "\n";
  }
  for (const auto &[Line, Hits] : Weft)
    if (!Coverlet.count(Line))
      OnlyWeft += "  " + Line.first + ":" + std::to_string(Line.second) + "\n";
  EXPECT_TRUE(OnlyWeft.empty() && OnlyCoverlet.empty() && Differ.empty())
      << "lines only weft's report has:\n"
      << OnlyWeft << "lines only coverlet's reports have:\n"
      << OnlyCoverlet << "lines hit a different number of times:\n"
      << Differ;
  EXPECT_GE(Weft.size(), 14u);

  // Lines and branch outcomes (file, line, branch offset, path), from weft's LCOV and coverlet's
  // JSON reports, the frameworks' runs added up.
  test::CoverageFigures WeftFigures, CoverletFigures;
  test::addWeftLcov(WeftFigures, Lcov);
  for (StringRef Tfm : {"net10.0", "net9.0"})
    test::addCoverletJson(CoverletFigures,
                          test::readFile(path(("coverlet/coverage." + Tfm + ".json").str())));
  EXPECT_GE(CoverletFigures.Branches.size(), 4u);
  std::string Differences = test::coverageDifferences(WeftFigures, CoverletFigures);
  EXPECT_TRUE(Differences.empty()) << Differences;
  EXPECT_TRUE(StringRef(Report).contains("<method name=\"Count\" signature=\"(System."
                                         "Collections.Generic.IEnumerable`1&lt;System.String&gt;)"
                                         "\" line-rate=\"1\" branch-rate=\"1\" "
                                         "complexity=\"4\">"))
      << Report;
  // The coverage targets' values reached weft whole too (the sample's path is in every one).
  EXPECT_EQ(test::filesUnder(Root, {"weft-pwned"}), std::vector<std::string>{});
}

} // namespace
