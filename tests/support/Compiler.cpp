//===- tests/support/Compiler.cpp - The SDK's compilers, rewritten --------===//
#include "tests/support/Compiler.h"

#include "tests/support/Env.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>
#include <functional>
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

namespace {

/// What differs between the two compilers the test rewrites.
struct CompilerKind {
  const char *Name;                        // for messages and scratch folders
  std::vector<const char *> FolderInSdk;   // the compiler's folder under the SDK's
  const char *Entry;                       // the assembly `dotnet` runs
  CorpusLanguage Language;                 // the corpus programs it compiles
  /// The arguments that compile \p Program to \p Out (a path relative to the working folder).
  std::function<std::vector<std::string>(StringRef Program, StringRef Out)> Args;
};

/// The reference assemblies of the targeting pack that ships with the SDK's runtime.
std::string targetingPack(StringRef SdkDir) {
  SmallString<256> DotnetRoot = sys::path::parent_path(sys::path::parent_path(SdkDir));
  std::string Pack;
  for (const Installed &F : sharedFrameworks())
    if (F.Name == "Microsoft.NETCore.App") {
      SmallString<256> P(DotnetRoot);
      sys::path::append(P, "packs", "Microsoft.NETCore.App.Ref", F.Version, "ref");
      if (sys::fs::is_directory(P))
        Pack = std::string(P);
    }
  return Pack;
}

std::vector<std::string> sourcesOf(StringRef Program, StringRef Extension) {
  SmallString<256> Src(sourceDir());
  sys::path::append(Src, "corpus", Program);
  return filesUnder(Src, {Extension});
}

CompilerKind csharp(const std::string &Pack, const std::string &Work) {
  std::vector<std::string> Refs;
  for (std::string &R : filesUnder(Pack, {".dll"}))
    Refs.push_back("-r:" + R);
  // The pack's source generators (LibraryImport and others), as the SDK passes them.
  SmallString<256> Analyzers(sys::path::parent_path(Pack));
  sys::path::append(Analyzers, "analyzers", "dotnet", "cs");
  for (std::string &A : filesUnder(Analyzers, {".dll"}))
    Refs.push_back("-analyzer:" + A);
  std::string Usings = Work + "/usings.cs";
  writeFile(Usings, "global using System;\nglobal using System.Collections.Generic;\n"
                    "global using System.IO;\nglobal using System.Linq;\n"
                    "global using System.Net.Http;\nglobal using System.Threading;\n"
                    "global using System.Threading.Tasks;\n");
  return {"C#", {"Roslyn", "bincore"}, "csc.dll", CorpusLanguage::CSharp,
          [=](StringRef Program, StringRef Out) {
            std::vector<std::string> A{"-nologo",          "-noconfig",   "-nostdlib",
                                       "-deterministic",   "-optimize+",  "-unsafe+",
                                       "-langversion:latest", "-nullable:disable", "-target:exe",
                                       Usings,             "-out:" + Out.str()};
            A.insert(A.end(), Refs.begin(), Refs.end());
            for (std::string &F : sourcesOf(Program, ".cs"))
              A.push_back(F);
            return A;
          }};
}

// The options the SDK's F# targets give fsc for the corpus's projects (release, tail calls on);
// FSharp.Core is the one the program was built against, from its folder. An F# program of the
// corpus is one Program.fs (F# compiles files in order, which a folder listing would not give).
CompilerKind fsharp(const std::string &Pack) {
  std::vector<std::string> Refs;
  for (std::string &R : filesUnder(Pack, {".dll"}))
    Refs.push_back("-r:" + R);
  return {"F#", {"FSharp"}, "fsc.dll", CorpusLanguage::FSharp,
          [=](StringRef Program, StringRef Out) {
            std::vector<std::string> A{"--nologo",        "--noframework", "--deterministic+",
                                       "--optimize+",     "--tailcalls+",  "--target:exe",
                                       "--targetprofile:netcore", "--out:" + Out.str()};
            A.insert(A.end(), Refs.begin(), Refs.end());
            SmallString<256> Core(sys::path::parent_path(corpusDll(Program)));
            sys::path::append(Core, "FSharp.Core.dll");
            A.push_back("-r:" + std::string(Core));
            for (std::string &F : sourcesOf(Program, ".fs"))
              A.push_back(F);
            return A;
          }};
}

/// The programs of \p Language that a test with \p Slice compiles.
std::vector<std::string> programsFor(CorpusLanguage Language, Share Slice) {
  std::vector<std::string> All = corpusPrograms(Language);
  if (fullRun() || Slice.Of <= 1)
    return All;
  unsigned long long Rotation = WEFT_SAMPLE_ROTATION;
  if (Optional<std::string> Env = sys::Process::GetEnv("WEFT_SAMPLE_ROTATION"))
    StringRef(*Env).getAsInteger(10, Rotation);
  std::vector<std::string> Some;
  for (size_t I = 0; I < All.size(); ++I)
    if ((I + Rotation) % Slice.Of == Slice.Index)
      Some.push_back(All[I]);
  return Some;
}

void checkCompiler(bool FSharp, StringRef Label, Share Slice, ArrayRef<std::string> WeaveArgs,
                   ArrayRef<std::string> ExtraFiles, ArrayRef<std::string> Env) {
  std::vector<Installed> Sdks = sdks();
  ASSERT_FALSE(Sdks.empty()) << "no SDK found through `dotnet --list-sdks`";
  std::string Pack = targetingPack(Sdks.back().Dir);
  ASSERT_FALSE(Pack.empty()) << "no Microsoft.NETCore.App.Ref targeting pack";
  std::string Work = scratchDir(((FSharp ? "fsharp-compiler-" : "compiler-") + Label).str());
  CompilerKind Kind = FSharp ? fsharp(Pack) : csharp(Pack, Work);
  SmallString<256> Original(Sdks.back().Dir);
  for (const char *Part : Kind.FolderInSdk)
    sys::path::append(Original, Part);
  std::string Entry = Kind.Entry;
  ASSERT_TRUE(sys::fs::exists(Original + "/" + Entry)) << "no " << Entry << " in " << Original;
  std::string Copy = Work + "/compiler";
  ASSERT_TRUE(copyTree(Original, Copy));
  std::vector<std::string> Failures;
  unsigned Rewritten = weaveFolder(Copy, WeaveArgs, Failures);
  for (const std::string &F : ExtraFiles)
    ASSERT_FALSE(sys::fs::copy_file(F, Copy + "/" + sys::path::filename(F).str()));
  if (!ExtraFiles.empty()) { // the host then loads every assembly of the folder, probes included
    SmallString<256> Deps(Copy + "/" + Entry);
    sys::path::replace_extension(Deps, "deps.json");
    sys::fs::remove(Deps);
  }
  for (const std::string &F : Failures)
    ADD_FAILURE() << F;
  EXPECT_GE(Rewritten, 3u); // csc or fsc and the compiler's libraries

  std::vector<std::string> RunEnv;
  for (const std::string &E : Env) {
    std::string V = E;
    for (size_t At; (At = V.find("{work}")) != std::string::npos;)
      V.replace(At, 6, Work);
    RunEnv.push_back(V);
  }
  std::vector<std::string> Programs = programsFor(Kind.Language, Slice);
  ASSERT_FALSE(Programs.empty());
  std::mutex Lock;
  unsigned Same = 0;
  ThreadPool Pool(hardware_concurrency());
  for (const std::string &Program : Programs)
    Pool.async([&, Program] {
      // Both compilers run in the same folder with the same relative output path, since a
      // compiler may record the paths it was given.
      std::string Dir = Work + "/" + Program;
      sys::fs::create_directories(Dir);
      std::string Out = Program + ".dll";
      std::string Outputs[2];
      for (int I = 0; I < 2; ++I) {
        // `env --chdir`: llvm::sys::ExecuteAndWait cannot set the working folder.
        std::vector<std::string> A{"--chdir=" + Dir, "dotnet",
                                   (I ? Copy : std::string(Original)) + "/" + Entry};
        for (std::string &Arg : Kind.Args(Program, Out))
          A.push_back(std::move(Arg));
        CommandResult R = run("env", A, I ? RunEnv : std::vector<std::string>{}, 600);
        if (R.ExitCode != 0) {
          std::lock_guard<std::mutex> G(Lock);
          ADD_FAILURE() << Program << ": the " << (I ? "rewritten" : "original") << " "
                        << Kind.Name << " compiler failed: " << R.Out << R.Err;
          return;
        }
        Outputs[I] = readFile(Dir + "/" + Out);
        sys::fs::rename(Dir + "/" + Out, Dir + (I ? "/rewritten-" : "/original-") + Out);
      }
      std::lock_guard<std::mutex> G(Lock);
      if (!Outputs[0].empty() && Outputs[0] == Outputs[1])
        ++Same;
      else
        ADD_FAILURE() << Program << ": the rewritten " << Kind.Name << " compiler's output differs";
    });
  Pool.wait();
  EXPECT_EQ(Same, Programs.size());
  outs() << "The " << Kind.Name << " compiler rewritten with "
         << (WeaveArgs.empty() ? "no passes" : Label) << " (" << Rewritten
         << " assemblies) compiled " << Same << " of " << Programs.size() << " corpus programs ("
         << (Programs.size() == corpusPrograms(Kind.Language).size() ? "all" : "this test's share")
         << ") to the same bytes.\n";
}

} // namespace

void checkRewrittenCompiler(StringRef Label, Share Programs, ArrayRef<std::string> WeaveArgs,
                            ArrayRef<std::string> ExtraFiles, ArrayRef<std::string> Env) {
  checkCompiler(false, Label, Programs, WeaveArgs, ExtraFiles, Env);
}

void checkRewrittenFSharpCompiler(StringRef Label, Share Programs,
                                  ArrayRef<std::string> WeaveArgs,
                                  ArrayRef<std::string> ExtraFiles, ArrayRef<std::string> Env) {
  checkCompiler(true, Label, Programs, WeaveArgs, ExtraFiles, Env);
}

} // namespace weft::test
