//===- tests/corpus/FSharpTest.cpp - F#'s own assemblies, woven -----------===//
//
// The F# programs of the corpus go through every corpus-wide test (run, dump, round trip, weave,
// tail calls, ilasm, ...). What is F#'s own:
//  - FSharp.Core, which every F# program calls, woven with each built-in pass and with all of
//    them, verifies and runs every F# program with its expected output;
//  - the SDK's F# compiler folder (fsc, FSharp.Compiler.Service, FSharp.Core and the assemblies
//    they load) rewritten with no pass, and woven with entry-exit, compiles the F# programs of
//    the corpus to the same bytes as the original compiler (each half of them; every one of them
//    with WEFT_FULL=1, which adds every other case of passCases(): the trace pass makes the
//    compiler many times slower).
//
//===----------------------------------------------------------------------===//
#include "tests/support/Compiler.h"
#include "tests/support/Env.h"
#include "tests/support/Golden.h"
#include "tests/support/Weave.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace llvm;
using namespace weft;

namespace {

std::vector<std::string> fsharpPrograms() {
  return test::corpusPrograms(test::CorpusLanguage::FSharp);
}

class WovenFSharpCore : public ::testing::TestWithParam<unsigned> {};

TEST_P(WovenFSharpCore, VerifiesAndRunsTheFSharpCorpus) {
  test::PassCase Case = test::passCases()[GetParam()];
  std::vector<std::string> Programs = fsharpPrograms();
  ASSERT_FALSE(Programs.empty());
  SmallString<256> Core(sys::path::parent_path(test::corpusDll(Programs[0])));
  sys::path::append(Core, "FSharp.Core.dll");
  ASSERT_TRUE(sys::fs::exists(Core)) << Core << " (the corpus.fsharp test puts it there)";
  std::string Dir = test::scratchDir("fsharp-core-" + Case.Label);
  std::string Woven = Dir + "/FSharp.Core.dll";
  std::vector<std::string> Args{"weave", std::string(Core), "-o", Woven, "--verify-each"};
  for (std::string &A : Case.Args("FSharp.Core"))
    Args.push_back(std::move(A));
  test::CommandResult W = test::run(test::weftTool(), Args, {}, 600);
  ASSERT_EQ(W.ExitCode, 0) << W.Err.substr(0, 3000);
  test::CommandResult V = test::run(test::weftTool(), {"verify", Woven}, {}, 600);
  EXPECT_EQ(V.ExitCode, 0) << V.Err.substr(0, 3000);

  unsigned Same = 0;
  bool Recorded = false;
  for (const std::string &Program : Programs) {
    // The program as built, its companions, and the woven FSharp.Core in place of the original.
    std::string Run = Dir + "/" + Program;
    ASSERT_FALSE(sys::fs::create_directories(Run));
    std::string Dll = Run + "/" + Program + ".dll";
    ASSERT_FALSE(sys::fs::copy_file(test::corpusDll(Program), Dll));
    ASSERT_TRUE(test::copyCorpusCompanions(Program, Run));
    ASSERT_FALSE(sys::fs::copy_file(Woven, Run + "/FSharp.Core.dll"));
    ASSERT_FALSE(sys::fs::copy_file(test::probesDll(), Run + "/Probes.dll"));
    ASSERT_FALSE(sys::fs::copy_file(test::replacementsDll(), Run + "/Replacements.dll"));
    std::string Log = Run + "/probe.log";
    test::CommandResult R = test::run(
        "dotnet", {Dll},
        {"WEFT_PROBE_LOG=" + Log, "WEFT_TRACE_FILE=" + Run + "/trace.json",
         "WEFT_COVERAGE_FILE=" + Run + "/{assembly}.weft-hits"},
        600);
    EXPECT_EQ(R.ExitCode, 0) << Program << ": " << R.Err.substr(0, 2000);
    std::string Want = test::expectedOutput(Program);
    if (R.ExitCode == 0 && R.Out == Want) {
      ++Same;
    } else {
      ADD_FAILURE() << Program << " with FSharp.Core woven with " << Case.Label << ":\n"
                    << test::firstDifference(Want, R.Out);
    }
    Recorded |= sys::fs::exists(Log);
    if (Case.Label == "coverage" || Case.Label == "all") {
      EXPECT_TRUE(sys::fs::exists(Run + "/FSharp.Core.weft-hits")) << Program;
    }
    if (Case.Label == "trace" || Case.Label == "all") {
      EXPECT_TRUE(sys::fs::exists(Run + "/trace.json")) << Program;
    }
  }
  if (Case.Label == "entry_exit" || Case.Label == "all") {
    EXPECT_TRUE(Recorded) << "the probes in FSharp.Core recorded nothing";
  }
  EXPECT_EQ(Same, Programs.size());
  outs() << "FSharp.Core woven with " << Case.Label << " ran " << Same << " of " << Programs.size()
         << " F# programs with their expected output.\n";
}

INSTANTIATE_TEST_SUITE_P(FSharpCore, WovenFSharpCore,
                         ::testing::Range(0u, unsigned(test::passCases().size())),
                         [](const auto &Info) { return test::passCases()[Info.param].Label; });

TEST(FSharpCompiler, RewrittenCompilesTheFSharpCorpusToTheSameBytes) {
  test::checkRewrittenFSharpCompiler("roundtrip", {0, 2}, {});
}

TEST(FSharpCompiler, WovenWithEntryExitCompilesTheFSharpCorpusToTheSameBytes) {
  ASSERT_TRUE(sys::fs::exists(test::probesDll()));
  test::checkRewrittenFSharpCompiler("entry-exit", {1, 2}, {"--pass", test::probeOption("Empty")},
                                     {test::probesDll()});
}

// Every pass case on the compiler, with WEFT_FULL=1. The compiler runs in a folder of its own
// per program, where the trace and the hits files go.
class WovenFSharpCompiler : public ::testing::TestWithParam<unsigned> {};

TEST_P(WovenFSharpCompiler, CompilesTheFSharpCorpusToTheSameBytes) {
  if (!test::fullRun())
    GTEST_SKIP() << "WEFT_FULL=1 runs every pass on the F# compiler";
  test::PassCase Case = test::passCases()[GetParam()];
  test::checkRewrittenFSharpCompiler(Case.Label, {}, Case.Args("compiler"),
                                     {test::probesDll(), test::replacementsDll()});
}

INSTANTIATE_TEST_SUITE_P(FSharpCompiler, WovenFSharpCompiler,
                         ::testing::Range(0u, unsigned(test::passCases().size())),
                         [](const auto &Info) { return test::passCases()[Info.param].Label; });

} // namespace
