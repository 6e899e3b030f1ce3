//===- tests/support/Compiler.cpp - The C# compiler, rewritten ------------===//
#include "tests/support/Compiler.h"

#include "tests/support/Env.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>
#include <mutex>

using namespace llvm;

namespace weft::test {

unsigned weaveFolder(StringRef Dir, ArrayRef<std::string> WeaveArgs,
                     std::vector<std::string> &Failures) {
  std::vector<std::string> Files = filesUnder(Dir, {".dll"});
  std::mutex Lock;
  unsigned Count = 0;
  ThreadPool Pool(hardware_concurrency());
  for (const std::string &F : Files)
    Pool.async([&, F] {
      CommandResult Info = run(weftTool(), {"info", "--json", F});
      if (Info.ExitCode != 0 || Info.Out.find("\"managed\": true") == std::string::npos)
        return; // native libraries and resources
      std::vector<std::string> Args{"weave", F, "--in-place"};
      Args.insert(Args.end(), WeaveArgs.begin(), WeaveArgs.end());
      CommandResult R = run(weftTool(), Args);
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
  return run("cp", {"-r", From.str(), To.str()}).ExitCode == 0;
}

void checkRewrittenCompiler(StringRef Label, ArrayRef<std::string> WeaveArgs,
                            ArrayRef<std::string> ExtraFiles, ArrayRef<std::string> Env) {
  std::vector<Installed> Sdks = sdks();
  ASSERT_FALSE(Sdks.empty()) << "no SDK found through `dotnet --list-sdks`";
  SmallString<256> Roslyn(Sdks.back().Dir);
  sys::path::append(Roslyn, "Roslyn", "bincore");
  ASSERT_TRUE(sys::fs::exists((Roslyn + "/csc.dll").str())) << "no csc.dll in " << Roslyn.str();
  std::string Work = scratchDir(("compiler-" + Label).str());
  std::string Copy = Work + "/compiler";
  ASSERT_TRUE(copyTree(Roslyn, Copy));
  std::vector<std::string> Failures;
  unsigned Rewritten = weaveFolder(Copy, WeaveArgs, Failures);
  for (const std::string &F : ExtraFiles)
    ASSERT_FALSE(sys::fs::copy_file(F, Copy + "/" + sys::path::filename(F).str()));
  if (!ExtraFiles.empty()) // the host then loads every assembly of the folder, probes included
    sys::fs::remove(Copy + "/csc.deps.json");
  for (const std::string &F : Failures)
    ADD_FAILURE() << F;
  EXPECT_GE(Rewritten, 3u); // csc, Microsoft.CodeAnalysis, Microsoft.CodeAnalysis.CSharp, ...

  // References: the targeting pack that ships with the SDK's runtime.
  SmallString<256> DotnetRoot = sys::path::parent_path(sys::path::parent_path(Sdks.back().Dir));
  std::string Pack;
  for (const Installed &F : sharedFrameworks())
    if (F.Name == "Microsoft.NETCore.App") {
      SmallString<256> P(DotnetRoot);
      sys::path::append(P, "packs", "Microsoft.NETCore.App.Ref", F.Version, "ref");
      if (sys::fs::is_directory(P))
        Pack = std::string(P);
    }
  ASSERT_FALSE(Pack.empty()) << "no Microsoft.NETCore.App.Ref targeting pack";
  std::vector<std::string> Refs;
  for (std::string &R : filesUnder(Pack, {".dll"}))
    Refs.push_back("-r:" + R);
  // The pack's source generators (LibraryImport and others), as the SDK passes them.
  SmallString<256> Analyzers(sys::path::parent_path(Pack));
  sys::path::append(Analyzers, "analyzers", "dotnet", "cs");
  for (std::string &A : filesUnder(Analyzers, {".dll"}))
    Refs.push_back("-analyzer:" + A);
  std::string Usings = Work + "/usings.cs";
  ASSERT_TRUE(writeFile(Usings, "global using System;\nglobal using System.Collections.Generic;\n"
                                "global using System.IO;\nglobal using System.Linq;\n"
                                "global using System.Net.Http;\nglobal using System.Threading;\n"
                                "global using System.Threading.Tasks;\n"));

  std::vector<std::string> RunEnv;
  for (const std::string &E : Env) {
    std::string V = E;
    for (size_t At; (At = V.find("{work}")) != std::string::npos;)
      V.replace(At, 6, Work);
    RunEnv.push_back(V);
  }
  std::mutex Lock;
  unsigned Same = 0;
  ThreadPool Pool(hardware_concurrency());
  for (const std::string &Program : corpusPrograms())
    Pool.async([&, Program] {
      SmallString<256> Src(sourceDir());
      sys::path::append(Src, "corpus", Program);
      std::vector<std::string> Args{
          "-nologo",  "-noconfig",           "-nostdlib",         "-deterministic", "-optimize+",
          "-unsafe+", "-langversion:latest", "-nullable:disable", "-target:exe",    Usings};
      Args.insert(Args.end(), Refs.begin(), Refs.end());
      for (std::string &F : filesUnder(Src, {".cs"}))
        Args.push_back(F);
      std::string Outputs[2];
      for (int I = 0; I < 2; ++I) {
        std::string Dir = Work + (I ? "/rewritten-" : "/original-") + Program;
        sys::fs::create_directories(Dir);
        std::vector<std::string> A = Args;
        A.insert(A.begin(), (I ? Copy : std::string(Roslyn)) + "/csc.dll");
        A.push_back("-out:" + Dir + "/" + Program + ".dll");
        CommandResult R = run("dotnet", A, I ? RunEnv : std::vector<std::string>{}, 300);
        if (R.ExitCode != 0) {
          std::lock_guard<std::mutex> G(Lock);
          ADD_FAILURE() << Program << ": the " << (I ? "rewritten" : "original")
                        << " compiler failed: " << R.Out << R.Err;
          return;
        }
        Outputs[I] = readFile(Dir + "/" + Program + ".dll");
      }
      std::lock_guard<std::mutex> G(Lock);
      if (!Outputs[0].empty() && Outputs[0] == Outputs[1])
        ++Same;
      else
        ADD_FAILURE() << Program << ": the rewritten compiler's output differs";
    });
  Pool.wait();
  EXPECT_EQ(Same, corpusPrograms().size());
  outs() << "The compiler rewritten with " << (WeaveArgs.empty() ? "no passes" : Label) << " ("
         << Rewritten << " assemblies) compiled " << Same << " of " << corpusPrograms().size()
         << " corpus programs to the same bytes.\n";
}

} // namespace weft::test
