//===- tests/corpus/RoundTripTest.cpp - Rewritten programs still run ------===//
//
// `weft weave IN -o OUT` with no passes, on real programs run by the real runtime:
//  - every corpus program, rewritten, runs with its expected output, passes `weft verify`, and
//    disassembles to the text of the original;
//  - the C# compiler of the installed SDK, with every assembly of its folder rewritten, compiles
//    every corpus program to the same bytes as the original compiler (deterministic compilation);
//  - a private copy of the shared runtime in which every managed assembly, System.Private.CoreLib
//    included, is rewritten runs every corpus program with its expected output.
//
//===----------------------------------------------------------------------===//
#include "tests/support/Compiler.h"
#include "tests/support/Env.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

using namespace llvm;
using namespace weft;
using test::expectedOutput;

namespace {

class RewrittenProgram : public ::testing::TestWithParam<std::string> {};

TEST_P(RewrittenProgram, RunsVerifiesAndDisassemblesLikeTheOriginal) {
  std::string Name = GetParam();
  std::string Dll = test::corpusDll(Name);
  ASSERT_TRUE(sys::fs::exists(Dll)) << Dll << " was not built (the corpus.build test does that)";
  std::string Dir = test::scratchDir("roundtrip-" + Name);
  std::string Out = Dir + "/" + Name + ".dll";
  test::CommandResult W = test::run(test::weftTool(), {"weave", Dll, "-o", Out});
  ASSERT_EQ(W.ExitCode, 0) << W.Err;
  ASSERT_TRUE(test::copyCorpusCompanions(Name, Dir));
  test::CommandResult Run = test::run("dotnet", {Out}, {}, 120);
  EXPECT_EQ(Run.ExitCode, 0) << Run.Err;
  EXPECT_TRUE(Run.Out == expectedOutput(Name)) << Run.Out.substr(0, 2000);
  test::CommandResult V = test::run(test::weftTool(), {"verify", Out});
  EXPECT_EQ(V.ExitCode, 0) << V.Err;
  test::CommandResult A = test::run(test::weftTool(), {"dump", Dll});
  test::CommandResult B = test::run(test::weftTool(), {"dump", Out});
  EXPECT_TRUE(A.Out == B.Out) << "the dumps differ";
}

INSTANTIATE_TEST_SUITE_P(Corpus, RewrittenProgram, ::testing::ValuesIn(test::corpusPrograms()),
                         [](const auto &Info) { return Info.param; });

// The C# compiler's own assemblies rewritten: compiling gives the same bytes (a third of the
// programs; the woven compilers of tests/corpus/WeaveTest.cpp compile the others).
TEST(RoundTrip, RewrittenCompilerCompilesTheCorpusToTheSameBytes) {
  test::checkRewrittenCompiler("roundtrip", {0, 3}, {});
}

// The shared runtime with every managed assembly rewritten.
TEST(RoundTrip, RewrittenSharedRuntimeRunsTheCorpus) {
  std::string Framework = test::netCoreAppDir();
  ASSERT_FALSE(Framework.empty());
  // <root>/shared/Microsoft.NETCore.App/<version>: the host and hostfxr come along.
  SmallString<256> Root =
      sys::path::parent_path(sys::path::parent_path(sys::path::parent_path(Framework)));
  std::string Work = test::scratchDir("roundtrip-runtime");
  std::string Version = sys::path::filename(Framework).str();
  ASSERT_FALSE(sys::fs::copy_file((Root + "/dotnet").str(), Work + "/dotnet"));
  sys::fs::setPermissions(Work + "/dotnet", sys::fs::perms(0755));
  ASSERT_TRUE(test::copyTree((Root + "/host").str(), Work + "/host"));
  sys::fs::create_directories(Work + "/shared/Microsoft.NETCore.App");
  ASSERT_TRUE(test::copyTree(Framework, Work + "/shared/Microsoft.NETCore.App/" + Version));
  std::vector<std::string> Failures;
  unsigned Rewritten =
      test::weaveFolder(Work + "/shared/Microsoft.NETCore.App/" + Version, {}, Failures);
  for (const std::string &F : Failures)
    ADD_FAILURE() << F;
  EXPECT_GT(Rewritten, 150u);
  test::CommandResult Info =
      test::run(test::weftTool(), {"info", Work + "/shared/Microsoft.NETCore.App/" + Version +
                                               "/System.Private.CoreLib.dll"});
  EXPECT_NE(Info.Out.find("ReadyToRun:        no"), std::string::npos)
      << "CoreLib was not rewritten: " << Info.Out;
  unsigned Passed = 0;
  for (const std::string &Program : test::corpusPrograms()) {
    test::CommandResult R = test::run(Work + "/dotnet", {test::corpusDll(Program)}, {}, 300);
    if (R.ExitCode == 0 && R.Out == expectedOutput(Program))
      ++Passed;
    else
      ADD_FAILURE() << Program << " on the rewritten runtime: exit " << R.ExitCode << "\n"
                    << R.Err.substr(0, 2000);
  }
  outs() << "The runtime with " << Rewritten << " rewritten assemblies ran " << Passed << " of "
         << test::corpusPrograms().size() << " corpus programs with their expected output.\n";
}

} // namespace
