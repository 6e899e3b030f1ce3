//===- tests/profiler/ProcessTreeTest.cpp - weft run over a tree of processes -===//
//
// `weft run -- dotnet test` starts the SDK's command, MSBuild's nodes, the compilers and the test
// host, all inheriting the variables that load the profiler. By default only the test host is
// instrumented; --process and WEFT_PROCESSES choose others (two programs of a shell's tree); no process of the tree outlives weft with the profiler;
// and processes that load the same module write their own coverage hits.
//
//===----------------------------------------------------------------------===//
#include "runtime-profiler/Identity.h"
#include "tests/support/Env.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <chrono>
#include <gtest/gtest.h>
#include <thread>
#include <unistd.h>

using namespace weft;
using namespace weft::test;

namespace {

/// The log's lines that say a process attached, with the process's command line.
std::vector<std::string> attachedProcesses(llvm::StringRef Log) {
  std::vector<std::string> Lines;
  llvm::SmallVector<llvm::StringRef, 64> All;
  Log.split(All, '\n', -1, false);
  for (llvm::StringRef L : All)
    if (L.contains("]: attached to CoreCLR ")) {
      size_t At = L.find("; process: ");
      Lines.push_back(At == llvm::StringRef::npos ? L.str() : L.substr(At + 11).str());
    }
  return Lines;
}

/// The processes alive now whose environment holds \p Marker.
std::vector<std::string> processesWith(llvm::StringRef Marker) {
  std::vector<std::string> Found;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It("/proc", EC), End; It != End && !EC; It.increment(EC)) {
    llvm::StringRef Pid = llvm::sys::path::filename(It->path());
    if (Pid.empty() || !llvm::all_of(Pid, llvm::isDigit))
      continue;
    auto Env = llvm::MemoryBuffer::getFileAsStream(It->path() + "/environ");
    if (!Env || !(*Env)->getBuffer().contains(Marker))
      continue;
    std::string Cmd = readFile(It->path() + "/cmdline");
    std::replace(Cmd.begin(), Cmd.end(), '\0', ' ');
    Found.push_back(Pid.str() + ": " + Cmd);
  }
  return Found;
}

TEST(ProcessTree, DotnetTestInstrumentsTheTestHostAndLeavesNothingBehind) {
  std::string Dir = scratchDir("process-tree");
  std::string Spec = Dir + "/weft.json", Log = Dir + "/weft.log", Out = Dir + "/out";
  ASSERT_TRUE(writeFile(Spec, "{\"version\": 1, \"rules\": [{\"match\": {\"assembly\": "
                              "\"RunTree\"}, \"passes\": [{\"name\": \"coverage\"}]}]}"));
  ASSERT_FALSE(llvm::sys::fs::create_directories(Out));
  // A mark in every process of the tree, to find any that outlives weft.
  std::string Marker = "WEFT_TEST_TREE=" + std::to_string(::getpid());
  CommandResult R = run(weftTool(),
                        {"run", "--spec", Spec, "--log", Log, "--output-dir", Out, "--", "dotnet",
                         "test", sourceDir() + "/tests/run-tree/RunTree.csproj", "--artifacts-path",
                         Dir + "/artifacts", "-nologo", "-v:q"},
                        {Marker}, 600);
  ASSERT_EQ(R.ExitCode, 0) << R.Out << R.Err << readFile(Log);
  EXPECT_NE(R.Out.find("Passed!"), std::string::npos) << R.Out;

  // Only the test host was instrumented; the SDK's command (and its MSBuild nodes, compilers,
  // VSTest console) declined.
  std::string Text = readFile(Log);
  std::vector<std::string> Attached = attachedProcesses(Text);
  ASSERT_FALSE(Attached.empty()) << Text;
  for (const std::string &P : Attached)
    EXPECT_NE(P.find("testhost.dll"), std::string::npos) << P;
  EXPECT_NE(Text.find("is not instrumented: it is the .NET SDK's command 'dotnet test'"),
            std::string::npos)
      << Text;

  // Nothing of the tree is still running with the profiler's variables (no reused MSBuild node,
  // no compiler server).
  std::vector<std::string> Left;
  for (int I = 0; I < 100; ++I) {
    Left = processesWith(Marker);
    if (Left.empty())
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(Left.empty()) << "still running: " << llvm::join(Left, "; ");

  // The test host's coverage: the map in the output folder, the hits named after the process.
  std::vector<std::string> Hits = filesUnder(Dir + "/artifacts", {".weft-hits"});
  ASSERT_EQ(Hits.size(), 1u) << Text;
  llvm::StringRef Name = llvm::sys::path::filename(Hits[0]);
  EXPECT_TRUE(Name.startswith("RunTree.") && Name.count('.') == 2) << Name;
  CommandResult Report =
      run(weftTool(), {"coverage", "report", "--map", Out + "/RunTree.dll.coverage.json", "--hits",
                       Hits[0], "--format", "lcov"});
  ASSERT_EQ(Report.ExitCode, 0) << Report.Err;
  EXPECT_NE(Report.Out.find("SF:" + sourceDir() + "/tests/run-tree/Counting.cs"), std::string::npos)
      << Report.Out;
}

// Two processes of one tree load the same module: each writes its own hits, the map is one, and
// the report adds them up.
TEST(ProcessTree, ProcessesLoadingOneModuleNeverOverwriteEachOthersHits) {
  std::string Dir = scratchDir("process-tree-hits");
  std::string Log = Dir + "/weft.log";
  ASSERT_TRUE(copyCorpusCompanions("Closures", Dir));
  ASSERT_FALSE(llvm::sys::fs::copy_file(corpusDll("Closures"), Dir + "/Closures.dll"));
  std::string Pdb = corpusDll("Closures");
  Pdb.replace(Pdb.size() - 4, 4, ".pdb");
  ASSERT_FALSE(llvm::sys::fs::copy_file(Pdb, Dir + "/Closures.pdb"));
  std::string Dll = Dir + "/Closures.dll";
  CommandResult R =
      run(weftTool(),
          {"run", "--pass", "coverage", "--log", Log, "--output-dir", Dir, "--", "sh", "-c",
           "cd '" + Dir + "' && dotnet '" + Dll + "' >one.txt & cd '" + Dir + "' && dotnet '" +
               Dll + "' >two.txt; wait"},
          {}, 300);
  ASSERT_EQ(R.ExitCode, 0) << R.Err << readFile(Log);
  EXPECT_EQ(readFile(Dir + "/one.txt"), expectedOutput("Closures"));
  EXPECT_EQ(readFile(Dir + "/two.txt"), expectedOutput("Closures"));
  std::vector<std::string> Hits = filesUnder(Dir, {".weft-hits"});
  ASSERT_EQ(Hits.size(), 2u) << readFile(Log);
  EXPECT_NE(Hits[0], Hits[1]);
  std::vector<std::string> Maps = filesUnder(Dir, {".coverage.json"});
  ASSERT_EQ(Maps.size(), 1u) << "one map for the module both processes wove the same";
  CommandResult Both = run(weftTool(), {"coverage", "report", "--map", Maps[0], "--hits", Hits[0],
                                        "--hits", Hits[1], "--format", "lcov"});
  CommandResult One = run(
      weftTool(), {"coverage", "report", "--map", Maps[0], "--hits", Hits[0], "--format", "lcov"});
  ASSERT_EQ(Both.ExitCode, 0) << Both.Err;
  // Every line's count in the sum is twice one run's (the program is deterministic).
  llvm::SmallVector<llvm::StringRef, 256> A, B;
  llvm::StringRef(One.Out).split(A, '\n');
  llvm::StringRef(Both.Out).split(B, '\n');
  ASSERT_EQ(A.size(), B.size());
  size_t Doubled = 0;
  for (size_t I = 0; I < A.size(); ++I) {
    llvm::StringRef LA = A[I], LB = B[I];
    if (!LA.consume_front("DA:") || !LB.consume_front("DA:"))
      continue;
    auto [LineA, CountA] = LA.split(',');
    auto [LineB, CountB] = LB.split(',');
    EXPECT_EQ(LineA, LineB);
    EXPECT_EQ(std::stoll(CountB.str()), 2 * std::stoll(CountA.str())) << LineA;
    Doubled += CountA != "0";
  }
  EXPECT_GT(Doubled, 10u);
}

/// Copies corpus program \p Name, its PDB and what it needs to run into \p Dir: its path there.
std::string copyProgram(const std::string &Name, const std::string &Dir) {
  EXPECT_TRUE(copyCorpusCompanions(Name, Dir));
  std::string Dll = corpusDll(Name), Pdb = Dll.substr(0, Dll.size() - 4) + ".pdb";
  EXPECT_FALSE(llvm::sys::fs::copy_file(Dll, Dir + "/" + Name + ".dll"));
  EXPECT_FALSE(llvm::sys::fs::copy_file(Pdb, Dir + "/" + Name + ".pdb"));
  return Dir + "/" + Name + ".dll";
}

/// What the profiler did in each of two programs run one after the other under `weft run`, with
/// \p Options before `--` and \p Env: the log, and the programs' outputs (which the profiler must
/// not change, chosen or not).
struct TwoPrograms {
  CommandResult R;
  std::string Log, OutClosures, OutSwitches;
};
TwoPrograms runTwo(const std::string &Tag, std::vector<std::string> Options,
                   std::vector<std::string> Env = {}) {
  std::string Dir = scratchDir("process-choice-" + Tag);
  std::string Closures = copyProgram("Closures", Dir), Switches = copyProgram("Switches", Dir);
  TwoPrograms T;
  std::vector<std::string> Args{"run", "--pass", "coverage", "--log", Dir + "/weft.log",
                                "--output-dir", Dir};
  Args.insert(Args.end(), Options.begin(), Options.end());
  Args.insert(Args.end(), {"--", "sh", "-c",
                           "cd '" + Dir + "' && dotnet '" + Closures + "' >closures.txt && dotnet '" +
                               Switches + "' >switches.txt"});
  T.R = run(weftTool(), Args, Env, 300);
  T.Log = readFile(Dir + "/weft.log");
  T.OutClosures = readFile(Dir + "/closures.txt");
  T.OutSwitches = readFile(Dir + "/switches.txt");
  return T;
}

/// Whether the log says a process running \p Program attached, or declined with \p Why.
bool attached(const std::string &Log, llvm::StringRef Program) {
  return llvm::any_of(attachedProcesses(Log),
                      [&](const std::string &P) { return llvm::StringRef(P).contains(Program); });
}
bool declined(const std::string &Log, llvm::StringRef Program, llvm::StringRef Why) {
  llvm::SmallVector<llvm::StringRef, 64> Lines;
  llvm::StringRef(Log).split(Lines, '\n', -1, false);
  return llvm::any_of(Lines, [&](llvm::StringRef L) {
    return L.contains("declined: this process") && L.contains(Program) && L.contains(Why);
  });
}

// --process GLOB chooses the processes of a tree to instrument by the name of their main
// assembly (or program, or command line); the others decline, saying why, and run as they do.
TEST(ProcessTree, ProcessChoosesByMainAssembly) {
  TwoPrograms T = runTwo("option", {"--process", "Clos*.dll"});
  ASSERT_EQ(T.R.ExitCode, 0) << T.R.Err << T.Log;
  EXPECT_EQ(T.OutClosures, expectedOutput("Closures"));
  EXPECT_EQ(T.OutSwitches, expectedOutput("Switches"));
  EXPECT_TRUE(attached(T.Log, "Closures.dll")) << T.Log;
  EXPECT_FALSE(attached(T.Log, "Switches.dll")) << T.Log;
  EXPECT_TRUE(declined(T.Log, "Switches.dll", "it matches none of WEFT_PROCESSES (Clos*.dll)"))
      << T.Log;
}

// WEFT_PROCESSES, set by the user rather than by --process, chooses the same way; several globs
// (';' between them) choose each process one of them matches, here by its command line.
TEST(ProcessTree, WeftProcessesVariableChoosesToo) {
  TwoPrograms T = runTwo("variable", {}, {"WEFT_PROCESSES=nothing-matches-this;*Switches*"});
  ASSERT_EQ(T.R.ExitCode, 0) << T.R.Err << T.Log;
  EXPECT_EQ(T.OutClosures, expectedOutput("Closures"));
  EXPECT_EQ(T.OutSwitches, expectedOutput("Switches"));
  EXPECT_TRUE(attached(T.Log, "Switches.dll")) << T.Log;
  EXPECT_FALSE(attached(T.Log, "Closures.dll")) << T.Log;
  EXPECT_TRUE(declined(T.Log, "Closures.dll", "it matches none of WEFT_PROCESSES")) << T.Log;
}

// Without either, both programs are instrumented (neither is one of the SDK's own processes).
TEST(ProcessTree, WithoutAChoiceEveryProgramIsInstrumented) {
  TwoPrograms T = runTwo("default", {});
  ASSERT_EQ(T.R.ExitCode, 0) << T.R.Err << T.Log;
  EXPECT_TRUE(attached(T.Log, "Closures.dll")) << T.Log;
  EXPECT_TRUE(attached(T.Log, "Switches.dll")) << T.Log;
  EXPECT_EQ(T.Log.find("declined: this process"), std::string::npos) << T.Log;
}

} // namespace
