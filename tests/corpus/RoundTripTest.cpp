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
#include "tests/support/Env.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"

#include <gtest/gtest.h>
#include <mutex>

using namespace llvm;
using namespace weft;

namespace {

std::string expectedOutput(StringRef Program) {
  SmallString<256> P(test::sourceDir());
  sys::path::append(P, "corpus", Program, "expected.txt");
  return test::readFile(P);
}

// Rewrites every managed assembly in \p Dir in place; returns how many.
unsigned weaveFolder(StringRef Dir, std::vector<std::string> &Failures) {
  std::vector<std::string> Files = test::filesUnder(Dir, {".dll"});
  std::mutex Lock;
  unsigned Count = 0;
  ThreadPool Pool(hardware_concurrency());
  for (const std::string &F : Files)
    Pool.async([&, F] {
      test::CommandResult Info = test::run(test::weftTool(), {"info", "--json", F});
      if (Info.ExitCode != 0 || Info.Out.find("\"managed\": true") == std::string::npos)
        return; // native libraries and resources
      test::CommandResult R = test::run(test::weftTool(), {"weave", F, "--in-place"});
      std::lock_guard<std::mutex> G(Lock);
      if (R.ExitCode != 0)
        Failures.push_back(F + ": " + R.Err);
      else
        ++Count;
    });
  Pool.wait();
  return Count;
}

bool copyTree(StringRef From, StringRef To) {
  return test::run("cp", {"-r", From.str(), To.str()}).ExitCode == 0;
}

class RewrittenProgram : public ::testing::TestWithParam<std::string> {};

TEST_P(RewrittenProgram, RunsVerifiesAndDisassemblesLikeTheOriginal) {
  std::string Name = GetParam();
  std::string Dll = test::corpusDll(Name);
  ASSERT_TRUE(sys::fs::exists(Dll)) << Dll << " was not built (the corpus.build test does that)";
  std::string Dir = test::scratchDir("roundtrip-" + Name);
  std::string Out = Dir + "/" + Name + ".dll";
  test::CommandResult W = test::run(test::weftTool(), {"weave", Dll, "-o", Out});
  ASSERT_EQ(W.ExitCode, 0) << W.Err;
  SmallString<256> Config(sys::path::parent_path(Dll));
  sys::path::append(Config, Name + ".runtimeconfig.json");
  ASSERT_FALSE(sys::fs::copy_file(Config, Dir + "/" + Name + ".runtimeconfig.json"));
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

// The C# compiler's own assemblies rewritten: compiling gives the same bytes.
TEST(RoundTrip, RewrittenCompilerCompilesTheCorpusToTheSameBytes) {
  std::vector<test::Installed> Sdks = test::sdks();
  ASSERT_FALSE(Sdks.empty()) << "no SDK found through `dotnet --list-sdks`";
  SmallString<256> Roslyn(Sdks.back().Dir);
  sys::path::append(Roslyn, "Roslyn", "bincore");
  ASSERT_TRUE(sys::fs::exists((Roslyn + "/csc.dll").str())) << "no csc.dll in " << Roslyn.str();
  std::string Work = test::scratchDir("roundtrip-compiler");
  std::string Copy = Work + "/compiler";
  ASSERT_TRUE(copyTree(Roslyn, Copy));
  std::vector<std::string> Failures;
  unsigned Rewritten = weaveFolder(Copy, Failures);
  for (const std::string &F : Failures)
    ADD_FAILURE() << F;
  EXPECT_GE(Rewritten, 3u); // csc, Microsoft.CodeAnalysis, Microsoft.CodeAnalysis.CSharp, ...

  // References: the targeting pack that ships with the SDK's runtime.
  SmallString<256> DotnetRoot = sys::path::parent_path(sys::path::parent_path(Sdks.back().Dir));
  std::string Pack;
  for (const test::Installed &F : test::sharedFrameworks())
    if (F.Name == "Microsoft.NETCore.App") {
      SmallString<256> P(DotnetRoot);
      sys::path::append(P, "packs", "Microsoft.NETCore.App.Ref", F.Version, "ref");
      if (sys::fs::is_directory(P))
        Pack = std::string(P);
    }
  ASSERT_FALSE(Pack.empty()) << "no Microsoft.NETCore.App.Ref targeting pack";
  std::vector<std::string> Refs;
  for (std::string &R : test::filesUnder(Pack, {".dll"}))
    Refs.push_back("-r:" + R);
  // The pack's source generators (LibraryImport and others), as the SDK passes them.
  SmallString<256> Analyzers(sys::path::parent_path(Pack));
  sys::path::append(Analyzers, "analyzers", "dotnet", "cs");
  for (std::string &A : test::filesUnder(Analyzers, {".dll"}))
    Refs.push_back("-analyzer:" + A);
  std::string Usings = Work + "/usings.cs";
  ASSERT_TRUE(test::writeFile(Usings,
                              "global using System;\nglobal using System.Collections.Generic;\n"
                              "global using System.IO;\nglobal using System.Linq;\n"
                              "global using System.Net.Http;\nglobal using System.Threading;\n"
                              "global using System.Threading.Tasks;\n"));

  std::mutex Lock;
  unsigned Same = 0;
  ThreadPool Pool(hardware_concurrency());
  for (const std::string &Program : test::corpusPrograms())
    Pool.async([&, Program] {
      SmallString<256> Src(test::sourceDir());
      sys::path::append(Src, "corpus", Program);
      std::vector<std::string> Args{
          "-nologo",  "-noconfig",           "-nostdlib",         "-deterministic", "-optimize+",
          "-unsafe+", "-langversion:latest", "-nullable:disable", "-target:exe",    Usings};
      Args.insert(Args.end(), Refs.begin(), Refs.end());
      for (std::string &F : test::filesUnder(Src, {".cs"}))
        Args.push_back(F);
      std::string Outputs[2];
      for (int I = 0; I < 2; ++I) {
        std::string Dir = Work + (I ? "/rewritten-" : "/original-") + Program;
        sys::fs::create_directories(Dir);
        std::vector<std::string> A = Args;
        A.insert(A.begin(), (I ? Copy : std::string(Roslyn)) + "/csc.dll");
        A.push_back("-out:" + Dir + "/" + Program + ".dll");
        test::CommandResult R = test::run("dotnet", A, {}, 300);
        if (R.ExitCode != 0) {
          std::lock_guard<std::mutex> G(Lock);
          ADD_FAILURE() << Program << ": the " << (I ? "rewritten" : "original")
                        << " compiler failed: " << R.Out << R.Err;
          return;
        }
        Outputs[I] = test::readFile(Dir + "/" + Program + ".dll");
      }
      std::lock_guard<std::mutex> G(Lock);
      if (!Outputs[0].empty() && Outputs[0] == Outputs[1])
        ++Same;
      else
        ADD_FAILURE() << Program << ": the rewritten compiler's output differs";
    });
  Pool.wait();
  EXPECT_EQ(Same, test::corpusPrograms().size());
  outs() << "The rewritten compiler (" << Rewritten << " assemblies) compiled " << Same << " of "
         << test::corpusPrograms().size() << " corpus programs to the same bytes.\n";
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
  ASSERT_TRUE(copyTree((Root + "/host").str(), Work + "/host"));
  sys::fs::create_directories(Work + "/shared/Microsoft.NETCore.App");
  ASSERT_TRUE(copyTree(Framework, Work + "/shared/Microsoft.NETCore.App/" + Version));
  std::vector<std::string> Failures;
  unsigned Rewritten = weaveFolder(Work + "/shared/Microsoft.NETCore.App/" + Version, Failures);
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
