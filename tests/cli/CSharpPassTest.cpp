//===- tests/cli/CSharpPassTest.cpp - Passes written in C# ----------------===//
//
// The C# example passes (examples/csharp), compiled with NativeAOT against the C# SDK
// (sdk/dotnet/Weft.Sdk) into shared libraries, loaded like any plugin: `weft passes` lists them;
// they weave tests/csharp-passes/Sample offline, and the woven program runs on CoreCLR with the
// behaviour the pass promises; under `weft run` the same plugin weaves at JIT time, a NativeAOT
// runtime inside the CoreCLR process, while the program's eight threads compile methods and
// collect garbage; and `weft attach` loads it into a program already running, whose threads
// keep allocating and collecting, and rewrites the methods it had compiled.
//
//===----------------------------------------------------------------------===//
#include "tests/profiler/Ticker.h"
#include "tests/support/Env.h"
#include "tests/support/OtherUser.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <gtest/gtest.h>
#include <map>

using namespace llvm;
using namespace weft;

namespace {

const std::string MethodTimer = WEFT_METHOD_TIMER_PLUGIN;
const std::string NullGuard = WEFT_NULL_GUARD_PLUGIN;
const std::string FromPackage = WEFT_FROM_PACKAGE_PLUGIN;
const std::string ConfigureAwait = WEFT_CONFIGURE_AWAIT_PLUGIN;
const std::string Sample = WEFT_CSHARP_SAMPLE;
const std::string CsEntryExit = WEFT_CS_ENTRY_EXIT_PLUGIN;
const std::string CEntryExit = WEFT_C_ENTRY_EXIT_PLUGIN;
const std::string BenchProbes = WEFT_BENCH_PROBES;

test::CommandResult weft(std::vector<std::string> Args, std::vector<std::string> Env = {}) {
  return test::run(test::weftTool(), Args, Env, 600);
}

/// A copy of the sample's folder in a scratch folder of its own; the path of its Sample.dll.
std::string sampleCopy(StringRef Name) {
  std::string Dir = test::scratchDir(Name);
  test::CommandResult R =
      test::run("cp", {"-R", std::string(sys::path::parent_path(Sample)) + "/.", Dir});
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  return Dir + "/Sample.dll";
}

/// Puts beside the woven copy in \p Dir what the sample at \p In needs to run.
bool copyCompanions(StringRef In, StringRef Dir) {
  for (const char *Companion : {"Sample.runtimeconfig.json", "Sample.deps.json"})
    if (sys::fs::copy_file(sys::path::parent_path(In) + "/" + Companion, Dir + "/" + Companion))
      return false;
  return true;
}

/// The lines of \p Out that start with \p Prefix, by the method they name: each one's times.
std::map<std::string, std::vector<double>> timings(StringRef Out, StringRef Prefix) {
  std::map<std::string, std::vector<double>> Times;
  SmallVector<StringRef, 0> Lines;
  Out.split(Lines, '\n');
  for (StringRef L : Lines) {
    if (!L.consume_front(Prefix))
      continue;
    auto [Method, Rest] = L.split(' ');
    double Ms = -1;
    if (!Rest.consume_back(" ms") || Rest.trim().getAsDouble(Ms))
      Ms = -1;
    Times[Method.str()].push_back(Ms);
  }
  return Times;
}

/// \p Out without the lines starting with \p Prefix.
std::string without(StringRef Out, StringRef Prefix) {
  std::string Rest;
  SmallVector<StringRef, 0> Lines;
  Out.split(Lines, '\n');
  for (size_t I = 0; I < Lines.size(); ++I)
    if (!Lines[I].startswith(Prefix))
      Rest += Lines[I].str() + (I + 1 < Lines.size() ? "\n" : "");
  return Rest;
}

/// What the sample's timed methods logged, as MethodTimer promises: each call that returned
/// once, with its time; nothing for a call left by an exception or a method not marked.
void expectTimed(const std::string &Out, const std::string &Plain) {
  auto Times = timings(Out, "MethodTimer: ");
  EXPECT_EQ(without(Out, "MethodTimer: "), Plain);
  ASSERT_EQ(Times["Sample.Program::Fib"].size(), 1u) << Out;
  EXPECT_GE(Times["Sample.Program::Fib"][0], 0.0) << Out;
  ASSERT_EQ(Times["Sample.Program::Sleep"].size(), 2u) << Out;
  EXPECT_GE(Times["Sample.Program::Sleep"][0], 19.0) << Out;
  EXPECT_GE(Times["Sample.Program::Sleep"][1], 29.0) << Out;
  EXPECT_EQ(Times["Sample.Program::SumAsync"].size(), 1u) << Out;
  EXPECT_EQ(Times["Sample.Program::Allocate"].size(), 8u) << Out;
  EXPECT_EQ(Times.count("Sample.Program::Throws"), 0u) << Out;
  EXPECT_EQ(Times.count("Sample.Program::Untimed"), 0u) << Out;
  EXPECT_EQ(Times.count("Sample.Program::Main"), 0u) << Out;
}

TEST(CSharpPass, PassesListsTheNativeAotPluginsPass) {
  test::CommandResult R = weft({"passes", "--load", MethodTimer});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  // The NativeAOT runtime's threads once crashed weft as it exited, in about one run in seven.
  for (int I = 0; I < 30; ++I)
    ASSERT_EQ(weft({"passes", "--load", MethodTimer}).ExitCode, 0) << "run " << I;
  EXPECT_TRUE(StringRef(R.Out).contains(
      "method-timer\n  Methods marked [Time] log how long each call took, as MethodTimer.Fody "
      "does\n    prefix: what the lines start with (default MethodTimer)\n"))
      << R.Out;
  EXPECT_TRUE(R.Err.empty()) << R.Err;
}

TEST(CSharpPass, MethodTimerWovenOfflineLogsEachTimedCall) {
  std::string In = sampleCopy("csharp-method-timer");
  test::CommandResult Plain = test::run("dotnet", {In}, {}, 300);
  ASSERT_EQ(Plain.ExitCode, 0) << Plain.Err;
  std::string Dir = test::scratchDir("csharp-method-timer-woven");
  test::CommandResult R = weft({"weave", In, "-o", Dir + "/Sample.dll", "--load", MethodTimer,
                                "--pass", "method-timer", "--verify-each", "-v"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_TRUE(StringRef(R.Err).contains("weft: 5 methods changed")) << R.Err;
  ASSERT_TRUE(copyCompanions(In, Dir));
  test::CommandResult Run = test::run("dotnet", {Dir + "/Sample.dll"}, {}, 300);
  ASSERT_EQ(Run.ExitCode, 0) << Run.Err;
  expectTimed(Run.Out, Plain.Out);
}

// The same pass in a project of a user's (tests/csharp-passes/FromPackage), built from the Weft.Sdk
// package rather than the SDK's project.
TEST(CSharpPass, APluginBuiltFromThePackageWeaves) {
  std::string In = sampleCopy("csharp-from-package");
  test::CommandResult Plain = test::run("dotnet", {In}, {}, 300);
  ASSERT_EQ(Plain.ExitCode, 0) << Plain.Err;
  std::string Dir = test::scratchDir("csharp-from-package-woven");
  test::CommandResult R = weft(
      {"weave", In, "-o", Dir + "/Sample.dll", "--load", FromPackage, "--pass", "method-timer"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  ASSERT_TRUE(copyCompanions(In, Dir));
  test::CommandResult Run = test::run("dotnet", {Dir + "/Sample.dll"}, {}, 300);
  ASSERT_EQ(Run.ExitCode, 0) << Run.Err;
  expectTimed(Run.Out, Plain.Out);
}

TEST(CSharpPass, MethodTimerAtJitTimeInsideTheRuntime) {
  std::string In = sampleCopy("csharp-method-timer-run");
  test::CommandResult Plain = test::run("dotnet", {In}, {}, 300);
  ASSERT_EQ(Plain.ExitCode, 0) << Plain.Err;
  std::string Dir = std::string(sys::path::parent_path(In));
  std::string Spec = Dir + "/weft.json";
  ASSERT_TRUE(test::writeFile(
      Spec, "{\"version\": 1, \"plugins\": [\"" + MethodTimer +
                "\"], \"rules\": [{\"match\": {\"assembly\": \"Sample\"}, \"passes\": "
                "[\"method-timer\"]}]}"));
  std::string Log = Dir + "/weft.log";
  test::CommandResult Run = weft({"run", "--log", Log, "--spec", Spec, "--", "dotnet", In});
  ASSERT_EQ(Run.ExitCode, 0) << Run.Err << test::readFile(Log);
  expectTimed(Run.Out, Plain.Out);
  std::string Text = test::readFile(Log);
  EXPECT_NE(Text.find("plugin weft-method-timer 1.0"), std::string::npos) << Text;
  EXPECT_NE(Text.find(" 0 left as they were after a problem"), std::string::npos) << Text;
}

/// The lines the sample prints for its NullGuard calls.
std::string guardLines(StringRef Out) {
  std::string Lines;
  for (StringRef Name :
       {"Length", "MaybeLength", "maybe", "Join", "Allowed", "allowed", "Box", "Count"}) {
    SmallVector<StringRef, 0> All;
    Out.split(All, '\n');
    for (StringRef L : All)
      if (L.startswith((Name + ":").str()) || L.startswith((Name + " ").str()))
        Lines += L.str() + "\n";
  }
  return Lines;
}

TEST(CSharpPass, NullGuardAndMethodTimerTogetherOfflineAndAtJitTime) {
  std::string In = sampleCopy("csharp-both");
  test::CommandResult Plain = test::run("dotnet", {In}, {}, 300);
  ASSERT_EQ(Plain.ExitCode, 0) << Plain.Err;
  // Without the pass: what C# does with null.
  EXPECT_EQ(guardLines(Plain.Out), "Length: NullReferenceException\nMaybeLength returned\n"
                                   "maybe -1\nJoin: NullReferenceException\nAllowed returned\n"
                                   "allowed none\nBox returned\n"
                                   "Count: ArgumentNullException source\n");
  const std::string Guarded = "Length: ArgumentNullException text\nMaybeLength returned\n"
                              "maybe -1\nJoin: ArgumentNullException b\nAllowed returned\n"
                              "allowed none\nBox: ArgumentNullException value\n"
                              "Count: ArgumentNullException items\n";
  std::string Dir = std::string(sys::path::parent_path(In));
  std::string Spec = Dir + "/weft.json";
  ASSERT_TRUE(test::writeFile(
      Spec, "{\"version\": 1, \"plugins\": [\"" + MethodTimer + "\", \"" + NullGuard +
                "\"], \"rules\": [{\"match\": {\"assembly\": \"Sample\"}, \"passes\": "
                "[\"null-guard\", \"method-timer\"]}]}"));
  // Offline: two NativeAOT plugins in one weft.
  std::string Out = test::scratchDir("csharp-both-woven");
  test::CommandResult R =
      weft({"weave", In, "-o", Out + "/Sample.dll", "--spec", Spec, "--verify-each"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  ASSERT_TRUE(copyCompanions(In, Out));
  test::CommandResult Woven = test::run("dotnet", {Out + "/Sample.dll"}, {}, 300);
  ASSERT_EQ(Woven.ExitCode, 0) << Woven.Err;
  EXPECT_EQ(guardLines(Woven.Out), Guarded) << Woven.Out;
  EXPECT_EQ(timings(Woven.Out, "MethodTimer: ")["Sample.Program::Sleep"].size(), 2u) << Woven.Out;
  // At JIT time, both inside the runtime.
  std::string Log = Dir + "/weft.log";
  test::CommandResult Run = weft({"run", "--log", Log, "--spec", Spec, "--", "dotnet", In});
  ASSERT_EQ(Run.ExitCode, 0) << Run.Err << test::readFile(Log);
  EXPECT_EQ(guardLines(Run.Out), Guarded) << Run.Out;
  EXPECT_EQ(without(Run.Out, "MethodTimer: "), without(Woven.Out, "MethodTimer: "));
}

/// The sample's line about where its library's continuations ran.
std::string contextLine(StringRef Out) {
  size_t At = Out.find("context posts ");
  return At == StringRef::npos ? "" : Out.substr(At).split('\n').first.str();
}

// ConfigureAwait: the library's awaits, which came back on the caller's SynchronizationContext
// (posted to it twice), no longer do, woven offline and at JIT time.
TEST(CSharpPass, ConfigureAwaitKeepsContinuationsOffTheCallersContext) {
  std::string In = sampleCopy("csharp-configure-await");
  test::CommandResult Plain = test::run("dotnet", {In}, {}, 300);
  ASSERT_EQ(Plain.ExitCode, 0) << Plain.Err;
  EXPECT_EQ(contextLine(Plain.Out), "context posts 2, continuations on the context True");
  const std::string Off = "context posts 0, continuations on the context False";
  std::string Dir = test::scratchDir("csharp-configure-await-woven");
  test::CommandResult R = weft({"weave", In, "-o", Dir + "/Sample.dll", "--load", ConfigureAwait,
                                "--pass", "configure-await", "--verify-each", "-v"});
  ASSERT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_TRUE(StringRef(R.Err).contains(
      "note: configure-await: Sample.Library/'<TwoAwaitsAsync>d__0'::MoveNext: 2 awaits without "
      "the caller's context"))
      << R.Err;
  ASSERT_TRUE(copyCompanions(In, Dir));
  test::CommandResult Run = test::run("dotnet", {Dir + "/Sample.dll"}, {}, 300);
  ASSERT_EQ(Run.ExitCode, 0) << Run.Err;
  EXPECT_EQ(contextLine(Run.Out), Off);
  // Everything else the program prints is as it was.
  EXPECT_EQ(without(Run.Out, "context posts "), without(Plain.Out, "context posts "));

  std::string Spec = std::string(sys::path::parent_path(In)) + "/weft.json";
  ASSERT_TRUE(test::writeFile(
      Spec, "{\"version\": 1, \"plugins\": [\"" + ConfigureAwait +
                "\"], \"rules\": [{\"match\": {\"assembly\": \"Sample\", \"stateMachines\": "
                "\"include\"}, \"passes\": [\"configure-await\"]}]}"));
  test::CommandResult Jit = weft({"run", "--spec", Spec, "--", "dotnet", In});
  ASSERT_EQ(Jit.ExitCode, 0) << Jit.Err;
  EXPECT_EQ(contextLine(Jit.Out), Off);
}

} // namespace

namespace {

// `weft attach` to the sample running its loop (a timed method each tick, two threads allocating
// and collecting): the plugin loads into the running process and the timed methods, compiled
// before it came, log their calls from then on; after `weft detach` the ticks go on without the
// lines, and the program ends as it would have.
TEST(CSharpPass, MethodTimerAttachedToARunningProgram) {
  test::TempFolderOfItsOwn Temp("csharp-attach"); // the runtime's sockets, not /tmp's
  std::string In = sampleCopy("csharp-method-timer-attach");
  std::string Dir = std::string(sys::path::parent_path(In));
  std::string Out = Dir + "/out.txt", Err = Dir + "/err.txt", Stop = Dir + "/stop";
  std::string Spec = Dir + "/weft.json", Log = Dir + "/weft.log";
  ASSERT_TRUE(test::writeFile(
      Spec, "{\"version\": 1, \"plugins\": [\"" + MethodTimer +
                "\"], \"rules\": [{\"match\": {\"assembly\": \"Sample\"}, \"passes\": "
                "[\"method-timer\"]}]}"));
  ErrorOr<std::string> Dotnet = sys::findProgramByName("dotnet");
  ASSERT_TRUE(bool(Dotnet));
  std::vector<StringRef> Args{"dotnet", In, "loop", Stop}, Env;
  for (char **E = environ; *E; ++E)
    if (!StringRef(*E).startswith("CORECLR_") && !StringRef(*E).startswith("DOTNET_"))
      Env.push_back(*E);
  Optional<StringRef> Redirects[] = {StringRef(""), StringRef(Out), StringRef(Err)};
  std::string Why;
  sys::ProcessInfo PI = sys::ExecuteNoWait(*Dotnet, Args, ArrayRef(Env), Redirects, 0, &Why);
  ASSERT_NE(PI.Pid, 0) << Why;
  auto Count = [&](StringRef What) { return StringRef(test::readFile(Out)).count(What); };
  auto Finish = [&] {
    test::writeFile(Stop, "");
    return sys::Wait(PI, 60, /*WaitUntilTerminates=*/true).ReturnCode;
  };
  if (!test::waitFor(60, [&] { return Count("tick ") >= 5; })) {
    Finish();
    FAIL() << test::readFile(Err);
  }
  EXPECT_EQ(Count("MethodTimer: "), 0u);

  test::CommandResult A =
      weft({"attach", "--pid", std::to_string(PI.Pid), "--spec", Spec, "--log", Log});
  EXPECT_EQ(A.ExitCode, 0) << A.Err;
  bool Timed = test::waitFor(60, [&] { return Count("MethodTimer: Sample.Program::Fib ") >= 10; });
  EXPECT_TRUE(Timed) << test::readFile(Out) << test::readFile(Log);
  EXPECT_TRUE(test::waitFor(60, [&] {
    return Count("MethodTimer: Sample.Program::Allocate ") >= 2;
  })) << test::readFile(Out);
  test::CommandResult D = weft({"detach", "--pid", std::to_string(PI.Pid)});
  EXPECT_EQ(D.ExitCode, 0) << D.Err;
  EXPECT_TRUE(test::waitFor(60, [&] {
    return test::readFile(Log).find("detach: done") != std::string::npos;
  })) << test::readFile(Log);
  size_t AtDetach = Count("MethodTimer: Sample.Program::Fib ");
  size_t TicksAtDetach = Count("tick ");
  EXPECT_TRUE(test::waitFor(60, [&] { return Count("tick ") >= TicksAtDetach + 10; }));
  // A call under way as the detach came may still log; none after it.
  EXPECT_LE(Count("MethodTimer: Sample.Program::Fib "), AtDetach + 1) << test::readFile(Out);
  EXPECT_EQ(Finish(), 0) << test::readFile(Err);

  std::string Printed = test::readFile(Out), Text = test::readFile(Log);
  EXPECT_TRUE(StringRef(Printed).endswith("done\n")) << Printed;
  EXPECT_NE(Text.find("plugin weft-method-timer 1.0"), std::string::npos) << Text;
  // Every summary (at the detach, at the end) counts no method left as it was after a problem.
  for (size_t At = Text.find(" left as they were after a problem"); At != std::string::npos;
       At = Text.find(" left as they were after a problem", At + 1))
    EXPECT_EQ(StringRef(Text).substr(0, At).rsplit(' ').second, "0") << Text;
}

// entry-exit written against the ABI, in C (bench/plugins/EntryExit.c) and in C# with NativeAOT
// (bench/plugins/EntryExitCs, through Module.AssemblyRef and OpenAssembly): both weave the sample
// (constructors, async, lambdas, generics, exceptions) to the bodies the built-in entry-exit
// weaves with probes that take the method's token, and what each wove runs as the sample does.
TEST(CSharpPass, EntryExitInCAndCSharpWeavesAsTheBuiltInDoes) {
  std::string In = sampleCopy("csharp-entry-exit");
  std::string Dir = std::string(sys::path::parent_path(In));
  test::CommandResult Plain = test::run("dotnet", {In}, {}, 300);
  ASSERT_EQ(Plain.ExitCode, 0) << Plain.Err;
  std::string Probes = "probe-assembly=" + BenchProbes + ",probe-type=Bench.Probes";
  const std::pair<std::string, std::vector<std::string>> Weaves[] = {
      {"builtin", {"--pass", "entry-exit:" + Probes + ",exception="}},
      {"c", {"--load", CEntryExit, "--pass", "c-entry-exit:" + Probes}},
      {"cs", {"--load", CsEntryExit, "--pass", "cs-entry-exit:" + Probes}}};
  for (const auto &[Name, Args] : Weaves) {
    std::string Out = Dir + "/" + Name;
    ASSERT_FALSE(sys::fs::create_directories(Out));
    std::vector<std::string> All{"weave", In, "-o", Out + "/Sample.dll"};
    All.insert(All.end(), Args.begin(), Args.end());
    test::CommandResult W = weft(All);
    ASSERT_EQ(W.ExitCode, 0) << Name << ": " << W.Err;
    // No deps.json, which does not list the probes: the host loads what the folder holds.
    ASSERT_FALSE(
        sys::fs::copy_file(Dir + "/Sample.runtimeconfig.json", Out + "/Sample.runtimeconfig.json"));
    ASSERT_FALSE(sys::fs::copy_file(BenchProbes, Out + "/Bench.Probes.dll"));
    test::CommandResult Run = test::run("dotnet", {Out + "/Sample.dll"}, {}, 300);
    EXPECT_EQ(Run.ExitCode, 0) << Name << ": " << Run.Err;
    EXPECT_EQ(Run.Out, Plain.Out) << Name;
  }
  test::CommandResult Woven = weft({"diff", In, Dir + "/builtin/Sample.dll", "--stat"});
  EXPECT_EQ(Woven.Out.find(" 0 methods differ"), std::string::npos) << Woven.Out;
  for (const char *Name : {"c", "cs"}) {
    test::CommandResult D =
        weft({"diff", Dir + "/builtin/Sample.dll", Dir + "/" + Name + "/Sample.dll", "--stat"});
    EXPECT_NE(D.Out.find(" 0 methods differ"), std::string::npos) << Name << ":\n" << D.Out;
  }
}

} // namespace
