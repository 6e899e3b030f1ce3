//===- tests/cli/WeaveCacheTest.cpp - weave for build systems -------------===//
//
// What `weft weave` offers a build: --cache-dir keeps outputs by what they were woven from (a hit
// gives the same files, a changed probe assembly misses), --deps names every file a weave read,
// and --message-format msbuild prints MSBuild diagnostics with codes and the spec's line.
//
//===----------------------------------------------------------------------===//
#include "tests/support/Weave.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <thread>

using namespace llvm;
using namespace weft;

namespace {

test::CommandResult weft(std::vector<std::string> Args) {
  return test::run(test::weftTool(), Args);
}

/// A scratch folder with CallHeavy (and its PDB), a copy of the probe assembly and a spec
/// weaving every method with entry-exit and those probes.
struct Workspace {
  std::string Dir, Input, Probes, Spec;
  explicit Workspace(StringRef Name) : Dir(test::scratchDir(Name)) {
    Input = Dir + "/CallHeavy.dll";
    Probes = Dir + "/Probes.dll";
    Spec = Dir + "/weft.json";
    std::string Dll = test::corpusDll("CallHeavy");
    EXPECT_TRUE(test::writeFile(Input, test::readFile(Dll)));
    std::string Pdb = Dll.substr(0, Dll.size() - 4) + ".pdb";
    EXPECT_TRUE(test::writeFile(Dir + "/CallHeavy.pdb", test::readFile(Pdb)));
    EXPECT_TRUE(test::writeFile(Probes, test::readFile(test::probesDll())));
    EXPECT_TRUE(test::writeFile(
        Spec, R"({"version": 1, "rules": [{"match": {"method": "*"}, "passes": [{"name":
        "entry-exit", "options": {"probe-assembly": "Probes.dll", "probe-type":
        "Weft.Probes.Empty"}}]}]})"));
    EXPECT_FALSE(sys::fs::create_directories(Dir + "/out"));
  }
  test::CommandResult weave(std::vector<std::string> More = {}) {
    std::vector<std::string> Args = {"weave", Input, "-o", Dir + "/out/CallHeavy.dll", "--spec",
                                     Spec, "--cache-dir", Dir + "/cache", "-v"};
    Args.insert(Args.end(), More.begin(), More.end());
    return weft(Args);
  }
  std::string output(const std::string &Suffix) {
    return test::readFile(Dir + "/out/CallHeavy" + Suffix);
  }
};

TEST(WeaveCache, HitGivesTheSameFilesAndAChangedProbeAssemblyMisses) {
  Workspace W("weave-cache");
  test::CommandResult R = W.weave();
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_FALSE(StringRef(R.Err).contains("weaving cache")) << R.Err;
  std::string Dll = W.output(".dll"), Pdb = W.output(".pdb");
  ASSERT_FALSE(Dll.empty());
  ASSERT_FALSE(Pdb.empty());
  ASSERT_FALSE(sys::fs::remove_directories(W.Dir + "/out"));
  ASSERT_FALSE(sys::fs::create_directories(W.Dir + "/out"));

  R = W.weave();
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_TRUE(StringRef(R.Err).contains("taken from the weaving cache")) << R.Err;
  EXPECT_EQ(W.output(".dll"), Dll);
  EXPECT_EQ(W.output(".pdb"), Pdb);

  // The probe assembly is only known once woven: the entry depends on its bytes.
  std::string Probes = test::readFile(W.Probes);
  ASSERT_TRUE(test::writeFile(W.Probes, Probes + std::string(16, '\0')));
  R = W.weave();
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_FALSE(StringRef(R.Err).contains("taken from the weaving cache")) << R.Err;
  // A changed spec misses too.
  ASSERT_TRUE(test::writeFile(W.Spec, test::readFile(W.Spec) + "\n"));
  R = W.weave();
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_FALSE(StringRef(R.Err).contains("taken from the weaving cache")) << R.Err;
  R = W.weave();
  EXPECT_TRUE(StringRef(R.Err).contains("taken from the weaving cache")) << R.Err;
}

TEST(WeaveCache, BuildsSharingTheCacheAtOnceAllSucceed) {
  Workspace W("weave-cache-shared");
  std::vector<test::CommandResult> Results(4);
  std::vector<std::thread> Threads;
  for (size_t I = 0; I < Results.size(); ++I)
    Threads.emplace_back([&, I] {
      Results[I] = weft({"weave", W.Input, "-o", W.Dir + "/out/C" + std::to_string(I) + ".dll",
                         "--spec", W.Spec, "--cache-dir", W.Dir + "/cache"});
    });
  for (std::thread &T : Threads)
    T.join();
  std::string First = test::readFile(W.Dir + "/out/C0.dll");
  ASSERT_FALSE(First.empty());
  for (size_t I = 0; I < Results.size(); ++I) {
    EXPECT_EQ(Results[I].ExitCode, 0) << Results[I].Err;
    EXPECT_EQ(Results[I].Err, "");
    EXPECT_EQ(test::readFile(W.Dir + "/out/C" + std::to_string(I) + ".dll"), First);
  }
  // One entry, and no temporary folder left behind.
  std::error_code EC;
  unsigned Entries = 0;
  for (sys::fs::directory_iterator It(W.Dir + "/cache", EC), End; It != End && !EC;
       It.increment(EC)) {
    EXPECT_FALSE(sys::path::filename(It->path()).startswith("tmp-")) << It->path();
    ++Entries;
  }
  EXPECT_EQ(Entries, 1u);
}

TEST(WeaveCache, DepsNameEveryFileTheWeaveRead) {
  Workspace W("weave-deps");
  for (int Round = 0; Round < 2; ++Round) { // woven, then from the cache: the same list
    test::CommandResult R = W.weave({"--deps", W.Dir + "/out/deps.txt"});
    ASSERT_EQ(R.ExitCode, 0) << R.Err;
    SmallVector<StringRef, 8> Lines;
    std::string Deps = test::readFile(W.Dir + "/out/deps.txt");
    StringRef(Deps).split(Lines, '\n', -1, false);
    std::vector<std::string> Got(Lines.begin(), Lines.end());
    llvm::sort(Got);
    std::vector<std::string> Want = {W.Input, W.Dir + "/CallHeavy.pdb", W.Probes, W.Spec};
    llvm::sort(Want);
    EXPECT_EQ(Got, Want) << Deps;
  }
}

TEST(WeaveCache, MSBuildMessagesHaveCodesAndTheSpecsLine) {
  Workspace W("weave-msbuild");
  ASSERT_TRUE(test::writeFile(W.Spec, "{\n  \"version\": 1,\n  \"rules\": [\n    {\"match\": "
                                      "{\"method\": \"*\"},\n     \"passes\": [\"nosuch\"]}\n  ]\n}\n"));
  test::CommandResult R = W.weave({"--message-format", "msbuild"});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_TRUE(StringRef(R.Err).startswith(W.Spec + "(4,5): error WEFT0001: rules[0]: unknown "
                                                   "pass 'nosuch'"))
      << R.Err;
  ASSERT_TRUE(test::writeFile(W.Spec, "{\"version\": 1, \"rules\": [}"));
  R = W.weave({"--message-format", "msbuild"});
  EXPECT_TRUE(StringRef(R.Err).startswith(W.Spec + "(1,26): error WEFT0001: invalid JSON"))
      << R.Err;

  std::string Broken = W.Dir + "/Broken.dll";
  ASSERT_TRUE(test::writeFile(Broken, test::readFile(W.Input).substr(0, 3000)));
  R = weft({"weave", Broken, "-o", W.Dir + "/out/B.dll", "--pass", "coverage",
            "--message-format", "msbuild"});
  EXPECT_EQ(R.ExitCode, 1);
  EXPECT_TRUE(StringRef(R.Err).startswith(Broken + ": error WEFT0002: section header")) << R.Err;
  EXPECT_FALSE(sys::fs::exists(W.Dir + "/out/B.dll"));
  R = weft({"weave", W.Input, "--message-format", "msbuild"});
  EXPECT_EQ(R.ExitCode, 2);
  EXPECT_TRUE(StringRef(R.Err).startswith("weft: error WEFT0005: weave needs -o")) << R.Err;
}

} // namespace
