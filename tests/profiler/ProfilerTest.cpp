//===- tests/profiler/ProfilerTest.cpp - The runtime profiler on the real runtime -===//
//
// `weft run` loads libweft_profiler.so into the installed CoreCLR: the profiler attaches (or says
// why it declines), matches the program's modules against the spec with weft's reader on the
// images where the runtime put them, and never changes what the program prints or returns.
// Also: pe::Image::createLoaded reads the same metadata from both layouts a loader leaves.
//
//===----------------------------------------------------------------------===//
#include "pe/Image.h"
#include "runtime-profiler/Identity.h"
#include "runtime-profiler/Profiler.h"
#include "tests/support/Env.h"
#include "tests/support/Loopback.h"
#include "tests/support/OtherUser.h"
#include "tests/support/Weave.h"
#include "tests/profiler/Ticker.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/ADT/ScopeExit.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <map>
#include <regex>
#include <set>
#include <thread>
#include <unistd.h>

extern char **environ;

using namespace weft;
using namespace weft::test;

namespace {

/// What a loader makes of a file: each section's data at its RVA, zeros elsewhere.
std::vector<uint8_t> mapLikeALoader(const pe::Image &File) {
  std::vector<uint8_t> Mapped(File.optional().SizeOfImage, 0);
  llvm::ArrayRef<uint8_t> Bytes = File.bytes();
  std::copy_n(Bytes.begin(), File.optional().SizeOfHeaders, Mapped.begin());
  for (const pe::Section &S : File.sections()) {
    uint32_t N = std::min(S.SizeOfRawData, S.VirtualSize ? S.VirtualSize : S.SizeOfRawData);
    std::copy_n(Bytes.begin() + S.PointerToRawData, N, Mapped.begin() + S.VirtualAddress);
  }
  return Mapped;
}

std::string text(llvm::ArrayRef<uint8_t> B) { return std::string(B.begin(), B.end()); }

TEST(LoadedImage, BothLayoutsReadTheFilesMetadata) {
  for (std::string Path : {corpusDll("Generics"), frameworkFile("System.Runtime.dll"),
                           frameworkFile("System.Private.CoreLib.dll")}) {
    SCOPED_TRACE(Path);
    auto File = pe::Image::open(Path);
    ASSERT_TRUE(bool(File)) << llvm::toString(File.takeError());
    std::vector<uint8_t> Mapped = mapLikeALoader(**File);
    auto AsMapped = pe::Image::createLoaded(Mapped.data(), pe::Image::Layout::Mapped, Path);
    ASSERT_TRUE(bool(AsMapped)) << llvm::toString(AsMapped.takeError());
    EXPECT_EQ(text((*AsMapped)->metadata()), text((*File)->metadata()));
    auto AsFlat = pe::Image::createLoaded((*File)->bytes().data(), pe::Image::Layout::Flat, Path);
    ASSERT_TRUE(bool(AsFlat)) << llvm::toString(AsFlat.takeError());
    EXPECT_EQ(text((*AsFlat)->metadata()), text((*File)->metadata()));
  }
}

TEST(LoadedImage, BadHeadersAreErrorsWithinTheHeaderLimit) {
  std::vector<uint8_t> Page(4096, 0);
  auto NoMz = pe::Image::createLoaded(Page.data(), pe::Image::Layout::Mapped, "zeros");
  ASSERT_FALSE(bool(NoMz));
  EXPECT_NE(llvm::toString(NoMz.takeError()).find("'MZ'"), std::string::npos);
  Page[0] = 'M', Page[1] = 'Z', Page[0x3C] = 0xF0, Page[0x3D] = 0x0F; // e_lfanew past the page
  auto Far = pe::Image::createLoaded(Page.data(), pe::Image::Layout::Mapped, "far");
  ASSERT_FALSE(bool(Far));
  EXPECT_NE(llvm::toString(Far.takeError()).find("e_lfanew"), std::string::npos);
}

TEST(ProfilerIdentity, TheClsidWeftRunGivesIsTheOneTheLibraryAnswers) {
  EXPECT_EQ(prof::CLSID_WeftProfiler, prof::guid("E56F61AE-E543-4D22-8B50-7334A9E7F8D6"));
  EXPECT_EQ(std::string(prof::ProfilerClsid), "{E56F61AE-E543-4D22-8B50-7334A9E7F8D6}");
}

struct Ran {
  CommandResult R;
  std::string Log;
};

Ran weftRun(llvm::StringRef Name, std::vector<std::string> Options, std::vector<std::string> Command,
            std::vector<std::string> Env = {}) {
  std::string LogFile = scratchDir("profiler-" + Name.str()) + "/weft.log";
  std::vector<std::string> Args = {"run", "--log", LogFile};
  Args.insert(Args.end(), Options.begin(), Options.end());
  Args.push_back("--");
  Args.insert(Args.end(), Command.begin(), Command.end());
  Ran Out;
  Out.R = run(weftTool(), Args, Env, 120);
  Out.Log = readFile(LogFile);
  return Out;
}

TEST(WeftRun, ExitStatusIsTheCommands) {
  Ran R = weftRun("exit-status", {}, {"sh", "-c", "exit 7"});
  EXPECT_EQ(R.R.ExitCode, 7);
  // 127 for a command that cannot be started, as shells say it (through sh: the test's runner
  // takes 127 for its own failure to start a program).
  CommandResult Missing = run(
      "sh", {"-c", "\"$0\" run -- no-such-command-weft-knows; echo \"status $?\"", weftTool()});
  EXPECT_EQ(Missing.Out, "status 127\n");
  EXPECT_NE(Missing.Err.find("cannot run 'no-such-command-weft-knows'"), std::string::npos)
      << Missing.Err;
}

TEST(WeftRun, UnknownPassIsAUsageErrorBeforeAnythingRuns) {
  Ran R = weftRun("unknown-pass", {"--pass", "no-such-pass"}, {"sh", "-c", "echo ran"});
  EXPECT_EQ(R.R.ExitCode, 2);
  EXPECT_EQ(R.R.Out, "");
  EXPECT_NE(R.R.Err.find("unknown pass 'no-such-pass'"), std::string::npos) << R.R.Err;
}

TEST(WeftRun, WithoutASpecTheProfilerAttachesAndChangesNothing) {
  Ran R = weftRun("no-spec", {}, {"dotnet", corpusDll("Generics")});
  EXPECT_EQ(R.R.ExitCode, 0) << R.R.Err;
  EXPECT_EQ(R.R.Out, expectedOutput("Generics"));
  EXPECT_NE(R.Log.find("attached to CoreCLR "), std::string::npos) << R.Log;
  EXPECT_NE(R.Log.find("no spec"), std::string::npos) << R.Log;
}

TEST(WeftRun, APassMatchesTheProgramsModulesNotTheFrameworks) {
  Ran R = weftRun("matches", {"--pass", "single-ret"}, {"dotnet", corpusDll("Generics")});
  EXPECT_EQ(R.R.ExitCode, 0) << R.R.Err;
  EXPECT_EQ(R.R.Out, expectedOutput("Generics"));
  EXPECT_NE(R.Log.find("attached to CoreCLR "), std::string::npos) << R.Log;
  EXPECT_NE(R.Log.find("; passes single-ret"), std::string::npos) << R.Log;
  EXPECT_NE(R.Log.find("Generics.dll: "), std::string::npos) << R.Log;
  EXPECT_EQ(R.Log.find("System.Private.CoreLib.dll: "), std::string::npos) << R.Log;
  EXPECT_NE(R.Log.find("shutting down: "), std::string::npos) << R.Log;
}

/// The variables a host that loads the profiler itself sets (a container, a service).
std::vector<std::string> hostEnvironment(const std::string &Spec, const std::string &Log) {
  return {"CORECLR_ENABLE_PROFILING=1", std::string("CORECLR_PROFILER=") + prof::ProfilerClsid,
          "CORECLR_PROFILER_PATH=" + binaryDir() + "/cli/" + prof::ProfilerLibrary,
          std::string(prof::SpecVariable) + "=" + Spec, std::string(prof::LogVariable) + "=" + Log};
}

TEST(Profiler, AHostSettingTheVariablesWithABadSpecGetsTheProgramAsBefore) {
  // A host that sets the variables itself (a container, a service), with a spec weft cannot use.
  std::string Dir = scratchDir("profiler-bad-spec");
  std::string Spec = Dir + "/weft.json", Log = Dir + "/weft.log";
  ASSERT_TRUE(writeFile(Spec, "{ \"version\": 1, \"rules\": [ { \"passes\": [\"no-such-pass\"] } ] }"));
  CommandResult R = run("dotnet", {corpusDll("Generics")},
                        hostEnvironment(Spec, Log), 120);
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Out, expectedOutput("Generics"));
  std::string Text = readFile(Log);
  EXPECT_NE(Text.find("declined on CoreCLR "), std::string::npos) << Text;
  EXPECT_NE(Text.find("unknown pass 'no-such-pass'"), std::string::npos) << Text;
  EXPECT_NE(Text.find("nothing is instrumented"), std::string::npos) << Text;
}

// --- the passes at JIT time, against the same passes woven offline ---

/// The corpus programs the equivalence tests run: a few kinds of code in CI (generics shared and
/// not, closures, exception handling and stack traces, iterators, F# with FSharp.Core beside
/// it), all with WEFT_FULL=1 but AsyncAwait, whose continuations run a number of times that
/// depends on timing (its unwoven probe log has 1,050 or 1,054 lines from run to run), and
/// FSharpTailCalls and CallHeavy, whose millions of recorded calls take minutes to log.
std::vector<std::string> equivalencePrograms() {
  if (!llvm::sys::Process::GetEnv("WEFT_FULL"))
    return {"Generics", "Closures", "Exceptions", "Iterators", "FSharpGenerics"};
  std::vector<std::string> All;
  for (const std::string &P : corpusPrograms())
    if (P != "AsyncAwait" && P != "FSharpTailCalls" && P != "CallHeavy")
      All.push_back(P);
  return All;
}

/// Corpus program \p Name in a folder of its own with what it needs and the probe assembly
/// beside it (the program must be able to load the probes); \p Dll replaces its assembly.
std::string programFolder(llvm::StringRef Tag, llvm::StringRef Name, llvm::StringRef Dll) {
  std::string Dir = scratchDir(("rt-" + Tag + "-" + Name).str());
  EXPECT_TRUE(copyCorpusCompanions(Name, Dir));
  EXPECT_FALSE(llvm::sys::fs::copy_file(Dll, Dir + "/" + Name.str() + ".dll"));
  // Its portable PDB (rewritten by the offline weave), so that stack traces show lines.
  std::string Pdb = llvm::StringRef(Dll).drop_back(4).str() + ".pdb";
  if (llvm::sys::fs::exists(Pdb)) {
    EXPECT_FALSE(llvm::sys::fs::copy_file(Pdb, Dir + "/" + Name.str() + ".pdb"));
  }
  EXPECT_FALSE(llvm::sys::fs::copy_file(probesDll(), Dir + "/Probes.dll"));
  EXPECT_FALSE(llvm::sys::fs::copy_file(replacementsDll(), Dir + "/Replacements.dll"));
  return Dir;
}

/// The lines of a probe log, sorted; hash codes (of strings: randomized per process) masked.
std::vector<std::string> sortedLines(llvm::StringRef Text) {
  llvm::SmallVector<llvm::StringRef, 64> Lines;
  Text.split(Lines, '\n', -1, false);
  std::vector<std::string> Out;
  for (llvm::StringRef L : Lines) {
    size_t At = L.find("::GetHashCode -> ");
    Out.push_back(At == llvm::StringRef::npos ? L.str() : L.take_front(At).str() + "::GetHashCode");
  }
  std::sort(Out.begin(), Out.end());
  return Out;
}

std::string shutdownLine(llvm::StringRef Log) {
  size_t At = Log.find("shutting down: ");
  return At == llvm::StringRef::npos ? "" : Log.substr(At).split('\n').first.str();
}

class RuntimeWeave : public ::testing::TestWithParam<std::string> {};

/// Corpus program \p Name run twice with one spec applying \p PassJson to its own assembly
/// (every method, lambdas and state machines included; not FSharp.Core beside it): under
/// `weft run`, and woven offline. Each run's environment gets \p Variable set to a file in its
/// folder named \p File. Both print what the program prints unwoven, or, for a pass that
/// changes what it prints (\p Unchanged false), the same as each other.
struct BothWays {
  std::string Plain, Offline; // the folders: the unwoven program, the woven one
  CommandResult Off;
  Ran Rt;
  std::string OfflineFile, RuntimeFile;
};

BothWays runBothWays(llvm::StringRef Tag, llvm::StringRef Name, llvm::StringRef PassJson,
                     llvm::StringRef Variable, llvm::StringRef File,
                     bool Unchanged = true) {
  BothWays B;
  B.Plain = programFolder(Tag.str() + "-plain", Name, corpusDll(Name));
  std::string Spec = B.Plain + "/weft.json";
  EXPECT_TRUE(writeFile(Spec, "{\"version\": 1, \"rules\": [{\"match\": {\"assembly\": \"" +
                                  Name.str() +
                                  "\", \"compilerGenerated\": \"include\", \"stateMachines\": "
                                  "\"include\"}, \"passes\": [" + PassJson.str() + "]}]}"));
  std::string Woven = scratchDir(("rt-woven-" + Tag + "-" + Name).str()) + "/" + Name.str() + ".dll";
  CommandResult W = run(weftTool(), {"weave", corpusDll(Name), "-o", Woven, "--spec", Spec});
  EXPECT_EQ(W.ExitCode, 0) << W.Err;
  B.Offline = programFolder(Tag.str() + "-offline", Name, Woven);
  if (llvm::sys::fs::exists(Woven + ".coverage.json")) {
    EXPECT_FALSE(llvm::sys::fs::copy_file(Woven + ".coverage.json",
                                          B.Offline + "/" + Name.str() + ".dll.coverage.json"));
  }
  B.OfflineFile = B.Offline + "/" + File.str();
  B.RuntimeFile = B.Plain + "/" + File.str();
  B.Off = run("dotnet", {B.Offline + "/" + Name.str() + ".dll"},
              {Variable.str() + "=" + B.OfflineFile}, 300);
  B.Rt = weftRun((Tag + "-" + Name).str(), {"--spec", Spec, "--output-dir", B.Plain},
                 {"dotnet", B.Plain + "/" + Name.str() + ".dll"},
                 {Variable.str() + "=" + B.RuntimeFile});
  if (Unchanged)
    EXPECT_EQ(B.Off.Out, expectedOutput(Name));
  else
    EXPECT_NE(B.Off.Out, expectedOutput(Name));
  EXPECT_EQ(B.Rt.R.Out, B.Off.Out) << B.Rt.R.Err;
  EXPECT_EQ(B.Rt.R.ExitCode, B.Off.ExitCode);
  EXPECT_NE(shutdownLine(B.Rt.Log).find(" 0 left as they were after a problem"), std::string::npos)
      << B.Rt.Log;
  return B;
}

// The Recorder probes log every entry, exit and exception with the arguments and return values:
// the program run under `weft run` logs exactly what the program woven offline logs (as sorted
// lines: threads may interleave), and prints what it prints unwoven.
TEST_P(RuntimeWeave, EntryExitRecordsWhatTheOfflineWeaveRecords) {
  BothWays B = runBothWays("ee", GetParam(),
                           "{\"name\": \"entry-exit\", \"options\": {\"probe-assembly\": "
                           "\"Probes.dll\", \"probe-type\": \"Weft.Probes.Recorder\"}}",
                           "WEFT_PROBE_LOG", "probes.log");
  std::string Expected = readFile(B.OfflineFile), Got = readFile(B.RuntimeFile);
  EXPECT_FALSE(Expected.empty());
  EXPECT_EQ(sortedLines(Got), sortedLines(Expected)) << B.Rt.Log;
}

// coverage at run time weaves the whole module when it begins (its counter count is known only
// at the end): the hits file is the offline-woven program's, byte for byte, and the map the
// profiler writes is the one `weave` writes but for where it found the PDB and the hits file's
// default name (under the profiler, each process's own: `{assembly}.{pid}.weft-hits`).
TEST_P(RuntimeWeave, CoverageHitsAreTheOfflineWeaves) {
  std::string Name = GetParam();
  BothWays B = runBothWays("cov", Name, "\"coverage\"", "WEFT_COVERAGE_FILE", "hits");
  std::string Expected = readFile(B.OfflineFile);
  EXPECT_NE(Expected.find("weft-hits 1 "), std::string::npos);
  EXPECT_EQ(readFile(B.RuntimeFile), Expected) << B.Rt.Log;
  auto WithoutPdb = [](llvm::StringRef Map) {
    llvm::SmallVector<llvm::StringRef, 16> Lines;
    Map.split(Lines, '\n');
    std::string Out;
    for (llvm::StringRef L : Lines)
      if (!L.trim().startswith("\"pdb\":") && !L.trim().startswith("\"hits-file\":"))
        Out += L.str() + "\n";
    return Out;
  };
  std::string Map = "/" + Name + ".dll.coverage.json";
  std::string RuntimeMap = readFile(B.Plain + Map);
  EXPECT_FALSE(RuntimeMap.empty()) << B.Rt.Log;
  EXPECT_NE(RuntimeMap.find("\"hits-file\": \"{assembly}.{pid}.weft-hits\""), std::string::npos);
  EXPECT_EQ(WithoutPdb(RuntimeMap), WithoutPdb(readFile(B.Offline + Map)));
  CommandResult Report = run(weftTool(), {"coverage", "report", "--map", B.Plain + Map, "--hits",
                                          B.RuntimeFile, "--format", "lcov"});
  EXPECT_EQ(Report.ExitCode, 0) << Report.Err;
  EXPECT_NE(Report.Out.find("DA:"), std::string::npos) << Report.Out;
}

// trace at run time: every method calls as often as in the offline-woven program (the table's
// call counts; the times differ from run to run).
TEST_P(RuntimeWeave, TraceCountsTheOfflineWeavesCalls) {
  BothWays B = runBothWays("trace", GetParam(), "\"trace\"", "WEFT_TRACE_FILE", "trace.json");
  auto Counts = [](llvm::StringRef Table) {
    std::vector<std::string> Out = traceTableCalls(Table);
    std::sort(Out.begin(), Out.end());
    return Out;
  };
  std::vector<std::string> Expected = Counts(readFile(B.OfflineFile + ".txt"));
  EXPECT_GT(Expected.size(), 1u);
  EXPECT_EQ(Counts(readFile(B.RuntimeFile + ".txt")), Expected) << B.Rt.Log;
}

// Probes that take the type arguments name the exact instantiation each call runs in, from the
// generic context (`ldtoken !T` / `!!T`): in code the runtime shares between reference types
// (System.__Canon) as in code it compiles per value type, at run time as offline.
TEST(RuntimeWeave, ProbesNameTheExactInstantiation) {
  BothWays B = runBothWays("inst", "Generics",
                           "{\"name\": \"entry-exit\", \"options\": {\"probe-assembly\": "
                           "\"Probes.dll\", \"probe-type\": \"Weft.Probes.Instantiations\"}}",
                           "WEFT_PROBE_LOG", "probes.log");
  std::vector<std::string> Expected = sortedLines(readFile(B.OfflineFile));
  std::vector<std::string> Got = sortedLines(readFile(B.RuntimeFile));
  EXPECT_EQ(Got, Expected) << B.Rt.Log;
  std::string Ns = "enter Weft.Corpus.Generics.";
  for (std::string Line :
       {Ns + "Constrained::IsNull <System.String>",                 // shared
        Ns + "Constrained::IsNull <System.Int32>",                  // a value type
        Ns + "Constrained::IsNull <System.Nullable`1[System.Int32]>",
        Ns + "Stack2`1::Push <System.String>",                      // a shared generic type
        Ns + "Stack2`1::Push <Weft.Corpus.Generics.Point>",         // a struct
        Ns + "Stack2`1::Aggregate <System.String,System.Int32>",    // type and method arguments
        Ns + "TaggedVisitor`1::Visit <System.String,System.String>", // a shared generic virtual
        Ns + "Program::Main <>"})                                   // not generic
    EXPECT_TRUE(llvm::is_contained(Got, Line)) << Line;
  for (const std::string &Line : Got)
    EXPECT_EQ(Line.find("__Canon"), std::string::npos) << Line;
}

// intercept-call redirects every Console.WriteLine(string) to a replacement that prefixes the
// line: the program under `weft run` prints what the offline-woven one prints. (F# programs
// print through printfn, which calls no Console.WriteLine(string) of theirs: they print as
// before, both ways.)
TEST_P(RuntimeWeave, InterceptCallRedirectsWhatTheOfflineWeaveRedirects) {
  bool FSharp = isFSharpProgram(GetParam());
  BothWays B = runBothWays("icall", GetParam(),
                           "{\"name\": \"intercept-call\", \"options\": {\"target\": "
                           "\"System.Console::WriteLine(string)\", \"replacement-assembly\": "
                           "\"Replacements.dll\", \"replacement-type\": "
                           "\"Weft.Replacements.Console\"}}",
                           "WEFT_UNUSED", "unused", /*Unchanged=*/FSharp);
  if (!FSharp) {
    EXPECT_NE(B.Rt.R.Out.find("| "), std::string::npos) << B.Rt.R.Out;
  }
}

// single-ret changes control flow only: the program prints what it prints, and no method is left
// alone after a problem (those it does not rewrite already had one exit).
TEST_P(RuntimeWeave, SingleRetKeepsTheProgramsOutput) {
  std::string Name = GetParam();
  Ran Rt = weftRun("sr-" + Name, {"--pass", "single-ret"}, {"dotnet", corpusDll(Name)});
  EXPECT_EQ(Rt.R.ExitCode, 0) << Rt.R.Err;
  EXPECT_EQ(Rt.R.Out, expectedOutput(Name));
  std::string Line = shutdownLine(Rt.Log);
  EXPECT_NE(Line.find(" 0 left as they were after a problem"), std::string::npos) << Rt.Log;
}

INSTANTIATE_TEST_SUITE_P(Corpus, RuntimeWeave, ::testing::ValuesIn(equivalencePrograms()),
                         [](const auto &Info) { return Info.param; });

// Methods a pass leaves alone (single-ret on methods that already return only at their end):
// with -v the log names each and says why, they are counted as unchanged, and the program
// prints what it prints.
TEST(RuntimeWeave, MethodsAPassLeavesAloneAreLoggedWithTheReason) {
  Ran Rt = weftRun("left-alone", {"-v", "--pass", "single-ret"}, {"dotnet", corpusDll("Generics")});
  EXPECT_EQ(Rt.R.ExitCode, 0) << Rt.R.Err;
  EXPECT_EQ(Rt.R.Out, expectedOutput("Generics"));
  EXPECT_NE(Rt.Log.find("Generics.dll: skipped by single-ret: "), std::string::npos) << Rt.Log;
  EXPECT_NE(Rt.Log.find("it already returns only at its end"), std::string::npos) << Rt.Log;
  std::string Line = shutdownLine(Rt.Log);
  EXPECT_EQ(Line.find(" 0 unchanged by the passes"), std::string::npos) << Line;
}

// Probes that throw on every call: the trampolines drop what they throw, so the program prints
// what it prints unwoven, every method it runs rewritten.
TEST(RuntimeWeave, AThrowingProbeDoesNotChangeTheProgram) {
  std::string Dir = programFolder("thrower", "Generics", corpusDll("Generics"));
  Ran Rt = weftRun("thrower",
                   {"--pass", "entry-exit:probe-assembly=" + Dir +
                                  "/Probes.dll,probe-type=Weft.Probes.Thrower"},
                   {"dotnet", Dir + "/Generics.dll"});
  EXPECT_EQ(Rt.R.ExitCode, 0) << Rt.R.Err;
  EXPECT_EQ(Rt.R.Out, expectedOutput("Generics"));
  std::string Line = shutdownLine(Rt.Log);
  EXPECT_NE(Line.find(" 0 left as they were after a problem"), std::string::npos) << Rt.Log;
  EXPECT_EQ(Line.find(" 0 rewritten"), std::string::npos) << Rt.Log;
}

// --- code nobody rebuilt: the framework's ReadyToRun code and a NuGet package ---

/// A dotnet of its own for \p Tag: the installed muxer (copied: it finds the framework beside
/// itself) and host, and the shared framework's files linked, but \p FileName, which is
/// \p Replacement.
std::string dotnetWith(llvm::StringRef Tag, llvm::StringRef FileName, llvm::StringRef Replacement) {
  std::string Framework = netCoreAppDir();
  llvm::StringRef Version = llvm::sys::path::filename(Framework);
  std::string Installed = llvm::sys::path::parent_path(
                              llvm::sys::path::parent_path(llvm::sys::path::parent_path(Framework)))
                              .str();
  std::string Root = scratchDir(("dotnet-" + Tag).str());
  std::string Shared = Root + "/shared/Microsoft.NETCore.App/" + Version.str();
  EXPECT_FALSE(llvm::sys::fs::create_directories(Shared));
  EXPECT_FALSE(llvm::sys::fs::copy_file(Installed + "/dotnet", Root + "/dotnet"));
  EXPECT_FALSE(llvm::sys::fs::setPermissions(Root + "/dotnet", llvm::sys::fs::all_exe |
                                                                   llvm::sys::fs::owner_all));
  EXPECT_FALSE(llvm::sys::fs::create_link(Installed + "/host", Root + "/host"));
  std::error_code Ec;
  for (llvm::sys::fs::directory_iterator It(Framework, Ec), End; It != End && !Ec; It.increment(Ec)) {
    llvm::StringRef Name = llvm::sys::path::filename(It->path());
    if (Name != FileName) {
      EXPECT_FALSE(llvm::sys::fs::create_link(It->path(), Shared + "/" + Name.str()));
    }
  }
  EXPECT_FALSE(Ec) << Ec.message();
  EXPECT_FALSE(llvm::sys::fs::copy_file(Replacement, Shared + "/" + FileName.str()));
  return Root + "/dotnet";
}

/// The third-party program in a folder of its own, with Newtonsoft.Json and the probes beside it.
std::string thirdPartyFolder(llvm::StringRef Tag) {
  std::string Built = llvm::sys::path::parent_path(helperDll("ThirdParty")).str();
  std::string Dir = scratchDir(("tp-" + Tag).str());
  for (const char *F : {"ThirdParty.dll", "ThirdParty.runtimeconfig.json", "Newtonsoft.Json.dll"})
    EXPECT_FALSE(llvm::sys::fs::copy_file(Built + "/" + F, Dir + "/" + F)) << F;
  EXPECT_FALSE(llvm::sys::fs::copy_file(probesDll(), Dir + "/Probes.dll"));
  return Dir;
}

/// The counts on the shutdown line: "..., of K matching methods: R rewritten, U unchanged ...".
std::pair<uint64_t, uint64_t> compiledAndRewritten(llvm::StringRef Line) {
  uint64_t Compiled = 0, Rewritten = 0;
  llvm::StringRef Rest = Line.split(", of ").second;
  Rest.consumeInteger(10, Compiled);
  Rest = Rest.split(" matching methods: ").second;
  Rest.consumeInteger(10, Rewritten);
  return {Compiled, Rewritten};
}

// A spec naming methods of System.Text.Json (the framework's, ReadyToRun: its code replaced by
// ReJIT, with the methods that inlined them) and of Newtonsoft.Json (restored from NuGet): the
// probes log exactly what the same two libraries woven offline log, the program prints what it
// prints, and nothing the spec does not name is rewritten. The log (-v) shows the ReadyToRun
// methods compiled again through ReJIT with their woven body, and the methods whose precompiled
// code inlined one (as the runtime answers) compiled from their IL instead.
TEST(RuntimeWeave, FrameworkAndPackageCodeIsWovenAsOffline) {
  std::string Plain = thirdPartyFolder("plain");
  std::string Spec = Plain + "/weft.json";
  std::string Probe = "{\"name\": \"entry-exit\", \"options\": {\"probe-assembly\": "
                      "\"Probes.dll\", \"probe-type\": \"Weft.Probes.Recorder\"}}";
  ASSERT_TRUE(writeFile(
      Spec, "{\"version\": 1, \"rules\": ["
            "{\"match\": {\"assembly\": \"System.Text.Json\", \"namespace\": "
            "\"System.Text.Json\", \"type\": \"JsonSerializer\"}, \"passes\": [" + Probe + "]},"
            "{\"match\": {\"assembly\": \"Newtonsoft.Json\", \"namespace\": "
            "\"Newtonsoft.Json\", \"type\": \"JsonConvert\"}, \"passes\": [" + Probe + "]}]}"));
  CommandResult Unwoven = run("dotnet", {Plain + "/ThirdParty.dll"});
  ASSERT_EQ(Unwoven.ExitCode, 0) << Unwoven.Err;

  std::string Offline = thirdPartyFolder("offline");
  std::string WovenJson = scratchDir("tp-woven") + "/System.Text.Json.dll";
  CommandResult W = run(weftTool(), {"weave", frameworkFile("System.Text.Json.dll"), "-o",
                                     WovenJson, "--spec", Spec});
  ASSERT_EQ(W.ExitCode, 0) << W.Err;
  W = run(weftTool(), {"weave", Plain + "/Newtonsoft.Json.dll", "-o",
                       Offline + "/Newtonsoft.Json.dll", "--spec", Spec});
  ASSERT_EQ(W.ExitCode, 0) << W.Err;
  std::string Dotnet = dotnetWith("tp", "System.Text.Json.dll", WovenJson);
  std::string OfflineLog = Offline + "/probes.log", RuntimeLog = Plain + "/probes.log";
  CommandResult Off = run(Dotnet, {Offline + "/ThirdParty.dll"}, {"WEFT_PROBE_LOG=" + OfflineLog});
  Ran Rt = weftRun("tp", {"-v", "--spec", Spec}, {"dotnet", Plain + "/ThirdParty.dll"},
                   {"WEFT_PROBE_LOG=" + RuntimeLog});
  EXPECT_EQ(Off.Out, Unwoven.Out) << Off.Err;
  EXPECT_EQ(Rt.R.Out, Unwoven.Out) << Rt.R.Err;

  std::vector<std::string> Expected = sortedLines(readFile(OfflineLog));
  std::vector<std::string> Got = sortedLines(readFile(RuntimeLog));
  EXPECT_EQ(Got.size(), Expected.size()) << Rt.Log; // a call missed is a line fewer
  if (Got.size() == Expected.size()) {
    EXPECT_EQ(Got, Expected) << Rt.Log;
  }
  bool SawJson = false, SawNewtonsoft = false;
  for (llvm::StringRef L : Got) {
    llvm::StringRef Method = L.split(' ').second;
    SawJson |= Method.startswith("System.Text.Json.JsonSerializer::");
    SawNewtonsoft |= Method.startswith("Newtonsoft.Json.JsonConvert::");
    EXPECT_TRUE(Method.startswith("System.Text.Json.JsonSerializer::") ||
                Method.startswith("Newtonsoft.Json.JsonConvert::"))
        << L;
  }
  EXPECT_TRUE(SawJson && SawNewtonsoft);

  EXPECT_NE(Rt.Log.find("System.Text.Json.dll: 150 of "), std::string::npos) << Rt.Log;
  EXPECT_NE(Rt.Log.find("Newtonsoft.Json.dll: 70 of "), std::string::npos) << Rt.Log;
  std::string Line = shutdownLine(Rt.Log);
  EXPECT_NE(Line.find(" 0 left as they were after a problem"), std::string::npos) << Rt.Log;
  EXPECT_NE(Line.find(" 0 ReJIT failures"), std::string::npos) << Rt.Log;

  // The ReadyToRun methods compiled again through ReJIT (-v logs each compilation), every one
  // the spec matches with its woven body: JsonSerializer's, among them the Serialize the program
  // calls once more at its end, after the runtime took the ReJIT asked for at load.
  std::set<std::string> ReJitted, InlinersReJitted, Other, Inliners, CompiledInstead;
  llvm::SmallVector<llvm::StringRef, 256> Lines;
  llvm::StringRef(Rt.Log).split(Lines, '\n', -1, false);
  for (llvm::StringRef L : Lines) {
    llvm::StringRef Method = L.split(": ").second;
    if (Method.consume_back(" compiled again through ReJIT with its woven body"))
      ReJitted.insert(Method.str());
    else if (Method.consume_back(" compiled again through ReJIT as it was: it had inlined a "
                                 "matching method"))
      InlinersReJitted.insert(Method.str());
    else if (Method.contains(" compiled again through ReJIT "))
      Other.insert(Method.str());
    else if (Method.contains(": its precompiled code inlined method "))
      Inliners.insert(Method.split("): its precompiled").first.str() + ")");
    else if (Method.consume_back(" compiled from its IL: its precompiled code inlined a matching "
                                 "method"))
      CompiledInstead.insert(Method.str());
  }
  EXPECT_FALSE(ReJitted.empty()) << Rt.Log;
  EXPECT_EQ(Other, std::set<std::string>());
  for (const std::string &M : ReJitted)
    EXPECT_TRUE(llvm::StringRef(M).startswith("System.Text.Json.dll: method 0x06")) << M;
  EXPECT_TRUE(llvm::any_of(ReJitted, [](const std::string &M) {
    return llvm::StringRef(M).endswith(" (Serialize)");
  })) << Rt.Log;
  EXPECT_NE(Line.find("; ReJIT compilations: " + std::to_string(ReJitted.size()) +
                      " with a body weft gave, " + std::to_string(InlinersReJitted.size()) +
                      " with their own IL"),
            std::string::npos)
      << Line;

  // The runtime's own record of the image's inlining names the methods whose precompiled code
  // inlined a matching one; those the program runs are compiled again from their IL: by the
  // JIT, their precompiled code declined, or by the ReJIT asked for with inliners, whichever
  // the runtime came to first.
  EXPECT_GE(Inliners.size(), 10u) << Rt.Log;
  std::set<std::string> InlinersCompiled = CompiledInstead;
  InlinersCompiled.insert(InlinersReJitted.begin(), InlinersReJitted.end());
  EXPECT_FALSE(InlinersCompiled.empty()) << Rt.Log;
  for (const std::string &M : InlinersCompiled)
    EXPECT_TRUE(Inliners.count(M)) << M;

  // Every method compiled among those the spec matches is rewritten, and only those are: the
  // others never reach the passes.
  auto [Compiled, Rewritten] = compiledAndRewritten(Line);
  EXPECT_GT(Compiled, 0u) << Line;
  EXPECT_EQ(Rewritten, Compiled) << Line;
}

// --- plugins in the profiler ---

/// A spec in \p Dir loading the two marker plugins (a with priority 2, b with priority 1) and
/// applying \p Passes to the third-party program's own assembly.
std::string markerSpec(llvm::StringRef Dir, llvm::StringRef Passes) {
  std::string Spec = Dir.str() + "/weft.json";
  EXPECT_TRUE(writeFile(Spec, "{\"version\": 1, \"plugins\": [{\"path\": \"" +
                                  std::string(WEFT_MARKER_A_PLUGIN) +
                                  "\", \"priority\": 2}, \"" + WEFT_MARKER_B_PLUGIN +
                                  "\"], \"rules\": [{\"match\": {\"assembly\": \"ThirdParty\"}, "
                                  "\"passes\": [" + Passes.str() + "]}]}"));
  return Spec;
}

/// "name value" lines as a map.
std::map<std::string, int> counts(llvm::StringRef Text) {
  std::map<std::string, int> Out;
  llvm::SmallVector<llvm::StringRef, 16> Lines;
  Text.split(Lines, '\n', -1, false);
  for (llvm::StringRef L : Lines) {
    auto [Name, Value] = L.split(' ');
    Value.getAsInteger(10, Out[Name.str()]);
  }
  return Out;
}

// Two plugins named by the spec: both passes rewrite the same methods, in the rule's order, as
// when the spec is woven offline; each plugin's hooks see only the events it asked for, in
// priority order; each keeps its own data on the method objects, and the profiler releases all
// of it.
TEST(ProfilerPlugins, TwoPluginsBothSeeTheirEventsAndRewriteTheSameMethods) {
  std::string Plain = thirdPartyFolder("plugins");
  std::string Spec = markerSpec(Plain, "\"mark-a\", \"mark-b\"");
  std::string Offline = thirdPartyFolder("plugins-offline");
  CommandResult W = run(weftTool(), {"weave", Plain + "/ThirdParty.dll", "-o",
                                     Offline + "/ThirdParty.dll", "--spec", Spec});
  ASSERT_EQ(W.ExitCode, 0) << W.Err;
  CommandResult Off = run("dotnet", {Offline + "/ThirdParty.dll"});
  std::string A = Plain + "/a.txt", B = Plain + "/b.txt", Order = Plain + "/order.txt";
  Ran Rt = weftRun("plugins", {"--spec", Spec}, {"dotnet", Plain + "/ThirdParty.dll"},
                   {"WEFT_MARKER_REPORT_a=" + A, "WEFT_MARKER_REPORT_b=" + B,
                    "WEFT_MARKER_ORDER=" + Order});
  EXPECT_EQ(Rt.R.ExitCode, 0) << Rt.R.Err;
  EXPECT_EQ(Rt.R.Out, Off.Out);
  // b's pass ran second, so its line comes first.
  EXPECT_NE(Rt.R.Out.find("b: Program::Main\na: Program::Main\n"), std::string::npos) << Rt.R.Out;
  EXPECT_EQ(readFile(Order), "b\na\n"); // priority 1 before priority 2
  std::map<std::string, int> Ca = counts(readFile(A)), Cb = counts(readFile(B));
  for (auto *C : {&Ca, &Cb}) {
    EXPECT_GT((*C)["modules"], 5);
    EXPECT_GT((*C)["jit"], 100);
    EXPECT_EQ((*C)["woven"], 2); // Program::Main and Order::.ctor, woven by both plugins' passes
    EXPECT_GT((*C)["data-set"], 100);
    EXPECT_EQ((*C)["data-released"], (*C)["data-set"]);
  }
  EXPECT_EQ(Ca["jit"], Cb["jit"]);
  EXPECT_EQ(Ca["data-set"], Cb["data-set"]); // each found only its own data on an object
  EXPECT_GE(Ca["gc-start"], 2);             // the program's two GC.Collect calls
  EXPECT_GE(Ca["induced"], 2);
  EXPECT_EQ(Ca["gc-end"], Ca["gc-start"]);
  EXPECT_EQ(Cb["gc-start"], 0); // b did not ask for collections
  EXPECT_NE(Rt.Log.find("plugin weft-test-marker-a 1.0"), std::string::npos) << Rt.Log;
  EXPECT_NE(shutdownLine(Rt.Log).find(" 0 left as they were after a problem"), std::string::npos)
      << Rt.Log;
}

// A plugin of the C ABI's first version (tests/plugin/abi-v1, C99) beside one of the deprecated
// C++ API in one spec: at JIT time its pass gives the program the lines it gives it offline, and
// its runtime hook sees the compilations and keeps a counter on each method's object; the log
// warns of the C++ plugin.
TEST(ProfilerPlugins, ACPluginOfTheFirstAbiWeavesAtJitTimeAndSeesCompilations) {
  std::string Plain = thirdPartyFolder("c-plugin");
  std::string Spec = Plain + "/weft.json";
  ASSERT_TRUE(writeFile(Spec, "{\"version\": 1, \"plugins\": [\"" +
                                  std::string(WEFT_C_TRACE_PLUGIN) + "\", \"" +
                                  WEFT_MARKER_A_PLUGIN +
                                  "\"], \"rules\": [{\"match\": {\"assembly\": \"ThirdParty\"}, "
                                  "\"passes\": [{\"name\": \"c-trace\", \"options\": "
                                  "{\"prefix\": \"ct\"}}, \"mark-a\"]}]}"));
  std::string Offline = thirdPartyFolder("c-plugin-offline");
  CommandResult W = run(weftTool(), {"weave", Plain + "/ThirdParty.dll", "-o",
                                     Offline + "/ThirdParty.dll", "--spec", Spec});
  ASSERT_EQ(W.ExitCode, 0) << W.Err;
  EXPECT_NE(W.Err.find("uses weft's C++ plugin API (weftGetPluginInfo), which is deprecated"),
            std::string::npos)
      << W.Err;
  CommandResult Off = run("dotnet", {Offline + "/ThirdParty.dll"});
  ASSERT_EQ(Off.ExitCode, 0) << Off.Err;
  EXPECT_NE(Off.Out.find("ct: enter Program::Main\n"), std::string::npos) << Off.Out;
  std::string Report = Plain + "/c-trace.txt";
  Ran Rt = weftRun("c-plugin", {"--spec", Spec}, {"dotnet", Plain + "/ThirdParty.dll"},
                   {"WEFT_C_TRACE_REPORT=" + Report});
  EXPECT_EQ(Rt.R.ExitCode, 0) << Rt.R.Err;
  EXPECT_EQ(Rt.R.Out, Off.Out);
  std::map<std::string, int> C = counts(readFile(Report));
  EXPECT_GT(C["jit"], 100) << readFile(Report);
  EXPECT_GT(C["methods-with-data"], 100);
  EXPECT_LE(C["methods-with-data"], C["jit"]);
  EXPECT_NE(Rt.Log.find("plugin c-trace 1.0"), std::string::npos) << Rt.Log;
  EXPECT_NE(Rt.Log.find("warning: plugin '" + std::string(WEFT_MARKER_A_PLUGIN) + "' uses weft's"),
            std::string::npos)
      << Rt.Log;
  EXPECT_NE(shutdownLine(Rt.Log).find(" 0 left as they were after a problem"), std::string::npos)
      << Rt.Log;
}

/// The lines of \p Log that contain \p What.
size_t linesWith(llvm::StringRef Log, llvm::StringRef What) {
  llvm::SmallVector<llvm::StringRef, 256> Lines;
  Log.split(Lines, '\n', -1, false);
  return llvm::count_if(Lines, [&](llvm::StringRef L) { return L.contains(What); });
}

// The hooks of code the runtime compiles again and of modules it unloads: single-ret on
// System.Text.Json's JsonSerializer (ReadyToRun: compiled again through ReJIT; some methods
// rewritten, others left as they are) and a plugin's pass on its Serialize methods, and a program
// that loads Newtonsoft.Json a second time into a collectible AssemblyLoadContext and unloads
// it. The ReJIT hook of plugin a sees each ReJIT compilation the profiler logs, told woven
// exactly where the profiler gave a woven body; its unload hook sees the collectible module go;
// plugin b, which asked for neither, sees neither.
TEST(ProfilerPlugins, TheReJitAndUnloadHooksSeeWhatTheRuntimeDoes) {
  std::string Dir = thirdPartyFolder("plugin-hooks");
  std::string Spec = Dir + "/weft.json";
  std::string Serializer = "{\"assembly\": \"System.Text.Json\", \"namespace\": "
                           "\"System.Text.Json\", \"type\": \"JsonSerializer\"}";
  ASSERT_TRUE(writeFile(Spec, "{\"version\": 1, \"plugins\": [{\"path\": \"" +
                                  std::string(WEFT_MARKER_A_PLUGIN) + "\", \"priority\": 2}, \"" +
                                  WEFT_MARKER_B_PLUGIN + "\"], \"rules\": [{\"match\": " +
                                  Serializer + ", \"passes\": [\"single-ret\"]}, {\"match\": " +
                                  Serializer.substr(0, Serializer.size() - 1) +
                                  ", \"method\": \"Serialize\"}, \"passes\": [\"mark-a\"]}]}"));
  CommandResult Unwoven = run("dotnet", {Dir + "/ThirdParty.dll", "unload"});
  ASSERT_EQ(Unwoven.ExitCode, 0) << Unwoven.Out << Unwoven.Err;
  EXPECT_NE(Unwoven.Out.find("collectible: [1,2,3]\ncollectible: unloaded\n"), std::string::npos)
      << Unwoven.Out;
  std::string A = Dir + "/a.txt", B = Dir + "/b.txt";
  Ran Rt =
      weftRun("plugin-hooks", {"-v", "--spec", Spec}, {"dotnet", Dir + "/ThirdParty.dll", "unload"},
              {"WEFT_MARKER_REPORT_a=" + A, "WEFT_MARKER_REPORT_b=" + B});
  EXPECT_EQ(Rt.R.ExitCode, 0) << Rt.R.Err;
  EXPECT_NE(Rt.R.Out.find("a: System.Text.Json.JsonSerializer::"), std::string::npos) << Rt.R.Out;
  std::map<std::string, int> Ca = counts(readFile(A)), Cb = counts(readFile(B));
  size_t ReJits = linesWith(Rt.Log, " compiled again through ReJIT ");
  size_t WovenReJits = linesWith(Rt.Log, " compiled again through ReJIT with its woven body");
  EXPECT_GT(WovenReJits, 0u) << Rt.Log;
  EXPECT_GT(ReJits, WovenReJits) << Rt.Log;
  EXPECT_EQ(size_t(Ca["rejit"]), ReJits) << Rt.Log;
  EXPECT_EQ(size_t(Ca["rejit-woven"]), WovenReJits) << Rt.Log;
  EXPECT_EQ(Ca["unloads"], 1);
  EXPECT_EQ(Ca["unloaded:Newtonsoft.Json.dll"], 1);
  EXPECT_EQ(Cb["rejit"], 0);
  EXPECT_EQ(Cb["unloads"], 0);
  EXPECT_GT(Cb["modules"], 5);
}

// A plugin's pass that fails on a method leaves that method as it was, says why, and the other
// methods are woven; the program runs.
TEST(ProfilerPlugins, APluginPassThatFailsLeavesItsMethodAsItWas) {
  std::string Dir = thirdPartyFolder("plugin-fails");
  std::string Spec = markerSpec(Dir, "{\"name\": \"mark-a\", \"options\": {\"fail\": \"Main\"}}");
  Ran Rt = weftRun("plugin-fails", {"--spec", Spec}, {"dotnet", Dir + "/ThirdParty.dll"});
  EXPECT_EQ(Rt.R.ExitCode, 0) << Rt.R.Err;
  EXPECT_EQ(Rt.R.Out.find("a: Program::Main"), std::string::npos) << Rt.R.Out;
  EXPECT_NE(Rt.R.Out.find("a: Order::.ctor"), std::string::npos) << Rt.R.Out;
  EXPECT_NE(Rt.R.Out.find("System.Text.Json: 25 orders"), std::string::npos) << Rt.R.Out;
  EXPECT_NE(Rt.Log.find("left as it is: "), std::string::npos) << Rt.Log;
  EXPECT_NE(Rt.Log.find("mark-a fails on Program::Main"), std::string::npos) << Rt.Log;
  EXPECT_NE(shutdownLine(Rt.Log).find(" 1 left as they were after a problem"), std::string::npos)
      << Rt.Log;
}

// A plugin that cannot be loaded: `weft run` refuses the spec before the command starts, and a
// host that sets the variables itself gets the program as before, the log saying why.
TEST(ProfilerPlugins, APluginThatCannotLoadInstrumentsNothing) {
  std::string Dir = thirdPartyFolder("plugin-missing");
  std::string Spec = Dir + "/weft.json", Log = Dir + "/weft.log";
  ASSERT_TRUE(writeFile(Spec, "{\"version\": 1, \"plugins\": [\"" +
                                  std::string(WEFT_MISSING_SYMBOL_PLUGIN) +
                                  "\"], \"rules\": [{\"passes\": [\"single-ret\"]}]}"));
  Ran Refused = weftRun("plugin-missing", {"--spec", Spec}, {"sh", "-c", "echo ran"});
  EXPECT_EQ(Refused.R.ExitCode, 2);
  EXPECT_EQ(Refused.R.Out, "");
  EXPECT_NE(Refused.R.Err.find("cannot be loaded as a shared library"), std::string::npos)
      << Refused.R.Err;
  CommandResult Unwoven = run("dotnet", {Dir + "/ThirdParty.dll"});
  CommandResult R = run("dotnet", {Dir + "/ThirdParty.dll"},
                        hostEnvironment(Spec, Log), 120);
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Out, Unwoven.Out);
  std::string Text = readFile(Log);
  EXPECT_NE(Text.find("declined on CoreCLR "), std::string::npos) << Text;
  EXPECT_NE(Text.find("weft-missing-symbol.so"), std::string::npos) << Text;
  EXPECT_NE(Text.find("nothing is instrumented"), std::string::npos) << Text;
}

// --- attach ---

// `weft attach` loads the profiler into a program started without any profiler variables,
// through the runtime's diagnostics channel: the method the spec names, already compiled and
// running, is compiled again through ReJIT (once, with its woven body, the log says with -v) and
// its probes record every call from then on, until `weft detach` reverts it (RequestRevert: its
// own IL again); the program prints what it prints unwoven throughout.
TEST(ProfilerAttach, ARunningProgramIsInstrumentedFromTheAttachToTheDetach) {
  TempFolderOfItsOwn Temp("attach"); // its sockets and control folder, not /tmp's
  std::string ProbeLog = scratchDir("attach-probes") + "/probes.log";
  Ticker T("attach", {}, {"WEFT_PROBE_LOG=" + ProbeLog});
  std::string Dir = T.Dir, Out = T.Out, Err = T.Err;
  llvm::sys::ProcessInfo &PI = T.PI;
  std::string Spec = Dir + "/weft.json", Log = Dir + "/weft.log";
  ASSERT_TRUE(writeFile(Spec, "{\"version\": 1, \"rules\": [{\"match\": {\"assembly\": "
                              "\"Ticker\", \"method\": \"Tick\"}, \"passes\": [{\"name\": "
                              "\"entry-exit\", \"options\": {\"probe-assembly\": \"Probes.dll\", "
                              "\"probe-type\": \"Weft.Probes.Recorder\"}}]}]}"));
  ASSERT_TRUE(waitFor(30, [&] { return countOf(readFile(Out), "\n") >= 5; })) << readFile(Err);

  CommandResult A = run(weftTool(), {"attach", "--pid", std::to_string(PI.Pid), "--spec", Spec,
                                     "--log", Log, "-v"});
  ASSERT_EQ(A.ExitCode, 0) << A.Err;
  EXPECT_EQ(A.Out, "weft: attached to process " + std::to_string(PI.Pid) + "; its log: " + Log +
                       "\n");
  size_t TicksAtAttach = countOf(readFile(Out), "\n");
  ASSERT_TRUE(waitFor(30, [&] { return countOf(readFile(Out), "\n") >= TicksAtAttach + 40; }));
  CommandResult D = run(weftTool(), {"detach", "--pid", std::to_string(PI.Pid)});
  ASSERT_EQ(D.ExitCode, 0) << D.Err;
  EXPECT_EQ(D.Out, "weft: the profiler in process " + std::to_string(PI.Pid) + " detached\n");
  EXPECT_NE(readFile(Log).find("detach: done"), std::string::npos) << readFile(Log);
  size_t TicksAtDetach = countOf(readFile(Out), "\n");
  ASSERT_TRUE(waitFor(30, [&] { return countOf(readFile(Out), "\n") >= TicksAtDetach + 15; }));
  EXPECT_EQ(T.stop(), 0) << readFile(Err);

  // The output is what the program prints unwoven.
  size_t Ticks = T.expectUnchangedOutput();
  // The probes saw the calls after the attach: consecutive arguments up to the last tick.
  std::vector<std::string> Recorded = sortedLines(readFile(ProbeLog));
  std::vector<int> Entered;
  for (llvm::StringRef L : Recorded) {
    int N = 0;
    if (L.consume_front("enter Program::Tick this=null (") && !L.consumeInteger(10, N))
      Entered.push_back(N);
  }
  std::sort(Entered.begin(), Entered.end());
  ASSERT_GE(Entered.size(), 10u) << readFile(Log);
  EXPECT_GT(Entered.front(), 0); // not from the start: the profiler came later
  EXPECT_LE(Entered.back(), int(TicksAtDetach)); // nor after the detach
  EXPECT_LT(Entered.back(), int(Ticks) - 10);
  for (size_t I = 1; I < Entered.size(); ++I)
    EXPECT_EQ(Entered[I], Entered[I - 1] + 1);
  EXPECT_EQ(countOf(readFile(ProbeLog), "exit Program::Tick -> "), Entered.size());
  std::string Text = readFile(Log);
  EXPECT_NE(Text.find("attached to the running process"), std::string::npos) << Text;
  EXPECT_NE(Text.find("Ticker.dll: 1 of "), std::string::npos) << Text;
  EXPECT_EQ(linesWith(Text, " (Tick) compiled again through ReJIT with its woven body"), 1u)
      << Text;
  EXPECT_EQ(linesWith(Text, " compiled again through ReJIT "), 1u) << Text;
  EXPECT_NE(Text.find("detach: 1 methods back to their own IL\n"), std::string::npos) << Text;
}

// `weft attach` with the span pass: a program running without a profiler, whose environment
// names an OTLP endpoint (as a service configured for OpenTelemetry has), gets spans for the
// method the spec names from the attach on, sent by the exporter the woven module carries
// (loaded as the first woven call starts it), each call once, with its argument; the program
// prints what it prints unwoven.
TEST(ProfilerAttach, SpansFromTheAttachOn) {
  TempFolderOfItsOwn Temp("attach-span");
  RecordingServer Server;
  Ticker T("attach-span", {},
           {"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:" + std::to_string(Server.port()),
            "OTEL_EXPORTER_OTLP_PROTOCOL=http/json", "OTEL_BSP_SCHEDULE_DELAY=100",
            "OTEL_SERVICE_NAME=ticker"});
  std::string Spec = T.Dir + "/weft.json", Log = T.Dir + "/weft.log";
  ASSERT_TRUE(writeFile(Spec, R"({"version": 1, "rules": [{"match": {"assembly": "Ticker",
      "method": "Tick"}, "passes": [{"name": "span", "options": {"arguments": ["n"]}}]}]})"));
  ASSERT_TRUE(T.waitTicks(5)) << readFile(T.Err);
  CommandResult A =
      run(weftTool(), {"attach", "--pid", std::to_string(T.PI.Pid), "--spec", Spec, "--log", Log});
  ASSERT_EQ(A.ExitCode, 0) << A.Err;
  size_t TicksAtAttach = T.ticks();
  ASSERT_TRUE(T.waitTicks(40)) << readFile(Log);
  auto Sent = [&] {
    std::string All;
    for (const RecordingServer::Request &Q : Server.requests())
      All += Q.Body;
    return All;
  };
  ASSERT_TRUE(waitFor(30, [&] { return countOf(Sent(), "\"name\":\"Program.Tick\"") >= 20; }))
      << readFile(Log) << readFile(T.Err);
  EXPECT_EQ(T.stop(), 0) << readFile(T.Err);
  T.expectUnchangedOutput();
  // Each span has the call's argument: consecutive ticks from after the attach, each once.
  std::vector<int> Ns;
  std::string All = Sent();
  std::regex Arg("\\{\"key\":\"weft.arg.n\",\"value\":\\{\"intValue\":\"([0-9]+)\"\\}\\}");
  for (std::sregex_iterator It(All.begin(), All.end(), Arg), End; It != End; ++It)
    Ns.push_back(std::stoi((*It)[1]));
  std::sort(Ns.begin(), Ns.end());
  ASSERT_GE(Ns.size(), 20u) << All.substr(0, 2000);
  EXPECT_GE(Ns.front(), int(TicksAtAttach) - 2) << "from the attach on";
  for (size_t I = 1; I < Ns.size(); ++I)
    EXPECT_EQ(Ns[I], Ns[I - 1] + 1) << "each call once";
}

// `weft detach` of a process without weft's profiler: the request is not taken, an error, and
// no request is left behind.
TEST(ProfilerAttach, DetachingAProcessWithoutTheProfilerIsAnError) {
  TempFolderOfItsOwn Temp("detach-none"); // its sockets and control folder, not /tmp's
  std::string Folder = prof::controlFolder(::geteuid());
  CommandResult D = run(weftTool(), {"detach", "--pid", std::to_string(getpid()), "--timeout", "1"});
  EXPECT_EQ(D.ExitCode, 1);
  EXPECT_TRUE(D.Err.find("did not take the request in 1 s") != std::string::npos ||
              D.Err.find("weft is not attached to process") != std::string::npos)
      << D.Err;
  EXPECT_FALSE(llvm::sys::fs::exists(prof::detachRequestPath(Folder, getpid())));
}

// No process, or one without a .NET diagnostics channel: an error naming the process.
TEST(ProfilerAttach, AProcessWithoutADiagnosticsChannelIsAnError) {
  TempFolderOfItsOwn Temp("attach-none"); // its sockets and control folder, not /tmp's
  std::string Dir = scratchDir("attach-none");
  std::string Spec = Dir + "/weft.json";
  ASSERT_TRUE(writeFile(Spec, "{\"version\": 1, \"rules\": []}"));
  CommandResult A = run(weftTool(), {"attach", "--pid", "999999", "--spec", Spec});
  EXPECT_EQ(A.ExitCode, 1);
  EXPECT_NE(A.Err.find("there is no process 999999"), std::string::npos) << A.Err;
  // This test's own process is no .NET program.
  A = run(weftTool(), {"attach", "--pid", std::to_string(getpid()), "--spec", Spec});
  EXPECT_EQ(A.ExitCode, 1);
  EXPECT_NE(A.Err.find("process " + std::to_string(getpid()) + " has no .NET diagnostics channel"),
            std::string::npos)
      << A.Err;
}

// --- tracepoints ---

/// One event of a tracepoint records file.
struct TraceEvent {
  std::string Ph, Name;
  int64_t Tid = 0;
  std::vector<std::string> Tracepoints;
  llvm::json::Object Args;
};

/// The text of the timeline file in \p Dir.
std::string timelineText(const std::string &Dir) {
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC))
    if (llvm::sys::path::filename(It->path()).startswith("weft-timeline-"))
      return readFile(It->path());
  return "";
}

/// The "B" and "E" events of the records file in \p Dir (each event is one line; the file may be
/// unfinished while the program runs).
std::vector<TraceEvent> traceEvents(const std::string &Dir) {
  std::vector<TraceEvent> Out;
  {
    std::string Text = timelineText(Dir);
    llvm::SmallVector<llvm::StringRef, 256> Lines;
    llvm::StringRef(Text).split(Lines, '\n', -1, false);
    for (llvm::StringRef L : Lines) {
      if (!L.startswith("{\"ph\":\"B\"") && !L.startswith("{\"ph\":\"E\""))
        continue;
      L.consume_back(",");
      llvm::Expected<llvm::json::Value> V = llvm::json::parse(L);
      EXPECT_TRUE(bool(V)) << L.str();
      if (!V)
        continue;
      llvm::json::Object &O = *V->getAsObject();
      TraceEvent E;
      E.Ph = O.getString("ph").getValueOr("").str();
      E.Name = O.getString("name").getValueOr("").str();
      E.Tid = O.getInteger("tid").getValueOr(0);
      if (llvm::json::Object *A = O.getObject("args")) {
        if (llvm::json::Array *T = A->getArray("tracepoints"))
          for (const llvm::json::Value &N : *T)
            E.Tracepoints.push_back(N.getAsString().getValueOr("").str());
        E.Args = std::move(*A);
      }
      Out.push_back(std::move(E));
    }
  }
  return Out;
}

size_t countEvents(const std::string &Dir, llvm::StringRef Ph, llvm::StringRef Name) {
  size_t N = 0;
  for (const TraceEvent &E : traceEvents(Dir))
    N += E.Ph == Ph && E.Name == Name;
  return N;
}

/// Replaces \p Path atomically with a spec naming \p Tracepoints (a JSON array's text).
void writeTracepoints(const std::string &Path, llvm::StringRef Tracepoints) {
  std::string Temp = Path + ".new";
  ASSERT_TRUE(writeFile(Temp, "{\"version\": 1, \"rules\": [], \"tracepoints\": " +
                                  Tracepoints.str() + "}"));
  ASSERT_FALSE(llvm::sys::fs::rename(Temp, Path));
}

std::string tracepoint(llvm::StringRef Name, llvm::StringRef Method, bool Enabled = true) {
  return ("{\"name\": \"" + Name + "\", \"match\": {\"assembly\": \"Ticker\", \"method\": \"" +
          Method + "\"}, \"enabled\": " + (Enabled ? "true" : "false") + "}")
      .str();
}

/// Checks a Describe call's arguments and result against what the program printed for it.
void expectDescribeRecorded(const TraceEvent &B, const TraceEvent &E) {
  const llvm::json::Array *A = B.Args.getArray("arguments");
  ASSERT_TRUE(A && A->size() == 5);
  const char *Names[] = {"n", "label", "color", "ratio", "order"};
  const char *Types[] = {"int32", "string", "valuetype Color", "float64", "class Order"};
  for (size_t I = 0; I < 5; ++I) {
    EXPECT_EQ((*A)[I].getAsObject()->getString("name"), llvm::Optional<llvm::StringRef>(Names[I]));
    EXPECT_EQ((*A)[I].getAsObject()->getString("type"), llvm::Optional<llvm::StringRef>(Types[I]));
  }
  auto Value = [&](size_t I) { return (*A)[I].getAsObject()->get("value"); };
  llvm::Optional<int64_t> N = Value(0)->getAsInteger();
  ASSERT_TRUE(N.hasValue());
  static const char *Colors[] = {"Red", "Green", "Blue"};
  EXPECT_EQ(Value(1)->getAsString(), llvm::Optional<llvm::StringRef>("L" + std::to_string(*N)));
  EXPECT_EQ(Value(2)->getAsString(), llvm::Optional<llvm::StringRef>(Colors[*N % 3]));
  EXPECT_EQ(Value(3)->getAsNumber(), llvm::Optional<double>(*N / 4.0));
  const llvm::json::Object *Order = Value(4)->getAsObject();
  ASSERT_TRUE(Order);
  EXPECT_EQ(Order->getString("type"), llvm::Optional<llvm::StringRef>("Order"));
  EXPECT_EQ(Order->getObject("fields")->getInteger("Id"), N);
  EXPECT_EQ(Order->getObject("fields")->getString("Customer"),
            llvm::Optional<llvm::StringRef>("c" + std::to_string(*N)));
  // The result, as the program printed it on the tick's line.
  const llvm::json::Object *Return = E.Args.getObject("return");
  ASSERT_TRUE(Return);
  EXPECT_EQ(Return->getString("type"), llvm::Optional<llvm::StringRef>("string"));
  std::string Printed = tickLine(int(*N));
  llvm::StringRef Description = llvm::StringRef(Printed).split(' ').second.split(' ').second.split(' ').second.split(' ').second.split(' ').first;
  EXPECT_EQ(Return->getString("value"), llvm::Optional<llvm::StringRef>(Description));
}

/// The figures of the log's timeline line ("... N calls recorded; ... (D dropped)"): calls,
/// dropped; -1 for a figure the log does not give.
std::pair<long long, long long> timelineFigures(llvm::StringRef Log) {
  size_t At = Log.find(" calls recorded");
  if (At == llvm::StringRef::npos)
    return {-1, -1};
  llvm::StringRef Line = Log.substr(Log.rfind('\n', At) + 1).split('\n').first;
  long long Calls = -1, Dropped = -1;
  llvm::StringRef Before = Line.split(" calls recorded").first;
  Before = Before.substr(Before.rfind(' ') + 1);
  if (Before.getAsInteger(10, Calls))
    Calls = -1;
  llvm::StringRef After = Line.rsplit(" (").second;
  if (After.consumeInteger(10, Dropped) || !After.startswith(" dropped)"))
    Dropped = -1;
  return {Calls, Dropped};
}

// Tracepoints added, combined, disabled, removed and added again by editing the spec while the
// program runs under `weft run`: each records the calls of the methods it names from then on,
// with each argument's name, type and value and the result or exception; disabling stops the
// records, removing reverts the methods (RequestRevert); a broken edit changes nothing; the
// method no tracepoint names is never touched, and the output stays what it is unwoven.
TEST(ProfilerTracepoints, EditingTheSpecChangesWhatARunningProgramRecords) {
  std::string Dir = scratchDir("tracepoints");
  std::string Spec = Dir + "/weft.json", Log = Dir + "/weft.log";
  writeTracepoints(Spec, "[]");
  Ticker T("tracepoints-run", {weftTool(), "run", "--spec", Spec, "--log", Log, "--output-dir",
                               Dir, "--"}, {});
  ASSERT_TRUE(T.waitTicks(5)) << readFile(T.Err) << readFile(Log);
  auto LogHas = [&](llvm::StringRef What) {
    return waitFor(30, [&] { return readFile(Log).find(What.str()) != std::string::npos; });
  };

  // Added: Describe records from now on.
  writeTracepoints(Spec, "[" + tracepoint("describe", "Describe") + "]");
  ASSERT_TRUE(waitFor(30, [&] { return countEvents(Dir, "E", "Program::Describe") >= 5; }))
      << readFile(Log);
  {
    std::vector<TraceEvent> Events = traceEvents(Dir);
    size_t Checked = 0;
    for (size_t I = 0; I + 1 < Events.size(); ++I)
      if (Events[I].Ph == "B" && Events[I].Name == "Program::Describe") {
        ASSERT_EQ(Events[I + 1].Ph, "E");
        EXPECT_EQ(Events[I].Tracepoints, std::vector<std::string>{"describe"});
        expectDescribeRecorded(Events[I], Events[I + 1]);
        ++Checked;
      }
    EXPECT_GE(Checked, 4u);
  }

  // A broken edit is refused; the tracepoints in force stay.
  ASSERT_TRUE(writeFile(Spec, "{\"version\": 1, \"rules\": [], \"tracepoints\": [{\"name\": 3}]}"));
  ASSERT_TRUE(LogHas("the tracepoints in force stay"));
  size_t Before = countEvents(Dir, "B", "Program::Describe");
  ASSERT_TRUE(waitFor(30, [&] { return countEvents(Dir, "B", "Program::Describe") >= Before + 3; }));

  // A second tracepoint on the same method, and one on Check, which throws for every n ending in 9.
  writeTracepoints(Spec, "[" + tracepoint("describe", "Describe") + ", " +
                             tracepoint("describe-too", "Describe") + ", " +
                             tracepoint("check", "Check") + "]");
  ASSERT_TRUE(waitFor(30, [&] {
    bool Both = false, Thrown = false;
    for (const TraceEvent &E : traceEvents(Dir)) {
      Both |= E.Tracepoints == std::vector<std::string>{"describe", "describe-too"};
      if (const llvm::json::Object *X = E.Args.getObject("exception"))
        Thrown |= X->getString("type") == llvm::Optional<llvm::StringRef>(
                                              "System.InvalidOperationException") &&
                  X->getObject("fields")->getString("_message").getValueOr("").startswith("nine ");
    }
    return Both && Thrown;
  })) << readFile(Log);

  // Disabled: Describe records nothing more while Check goes on.
  writeTracepoints(Spec, "[" + tracepoint("describe", "Describe", false) + ", " +
                             tracepoint("describe-too", "Describe", false) + ", " +
                             tracepoint("check", "Check") + "]");
  ASSERT_TRUE(LogHas("0 reverted to their own IL, 2 updated in place"));
  std::this_thread::sleep_for(std::chrono::milliseconds(300)); // what was recorded is written
  size_t Disabled = countEvents(Dir, "B", "Program::Describe");
  size_t Checks = countEvents(Dir, "B", "Program::Check");
  ASSERT_TRUE(T.waitTicks(15));
  ASSERT_TRUE(waitFor(5, [&] { return countEvents(Dir, "B", "Program::Check") >= Checks + 10; }));
  EXPECT_EQ(countEvents(Dir, "B", "Program::Describe"), Disabled);

  // Removed: both methods reverted to their own IL; nothing more is recorded.
  writeTracepoints(Spec, "[]");
  ASSERT_TRUE(LogHas("0 methods compiled again with tracepoint code, 2 reverted to their own IL"));
  std::this_thread::sleep_for(std::chrono::milliseconds(300)); // what was recorded is written
  size_t All = traceEvents(Dir).size();
  ASSERT_TRUE(T.waitTicks(15));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(traceEvents(Dir).size(), All);

  // Added again: compiled again with the body kept, recording again.
  writeTracepoints(Spec, "[" + tracepoint("describe", "Describe") + "]");
  size_t Again = countEvents(Dir, "E", "Program::Describe");
  ASSERT_TRUE(waitFor(30, [&] { return countEvents(Dir, "E", "Program::Describe") >= Again + 3; }))
      << readFile(Log);

  EXPECT_EQ(T.stop(), 0) << readFile(T.Err);
  T.expectUnchangedOutput();
  std::vector<TraceEvent> Events = traceEvents(Dir);
  for (const TraceEvent &E : Events)
    EXPECT_TRUE(E.Name == "Program::Describe" || E.Name == "Program::Check") << E.Name;
  std::string Text = readFile(Log);
  EXPECT_NE(Text.find("timeline: 3 methods compiled with tracepoint code, 2 reverted"),
            std::string::npos) << Text;
  EXPECT_NE(Text.find("(0 dropped)"), std::string::npos) << Text;
  EXPECT_EQ(Text.find("left as it is"), std::string::npos) << Text;
  // Each call recorded is on the timeline.
  long long Calls = timelineFigures(Text).first;
  EXPECT_GT(Calls, 0) << Text;
  EXPECT_EQ(llvm::count_if(Events, [](const TraceEvent &E) { return E.Ph == "B"; }), Calls);
}

// The same through `weft attach`, on a program started without any profiler variables: a
// tracepoint added by editing the spec records, removing it reverts the method, adding it again
// records again, and `weft detach` ends it all; the output is unchanged throughout.
TEST(ProfilerTracepoints, AnAttachedProfilerFollowsTheSpecUntilTheDetach) {
  TempFolderOfItsOwn Temp("tracepoints-attach"); // its sockets and control folder, not /tmp's
  Ticker T("tracepoints-attach", {}, {});
  std::string Spec = T.Dir + "/weft.json", Log = T.Dir + "/weft.log";
  writeTracepoints(Spec, "[]");
  ASSERT_TRUE(T.waitTicks(5)) << readFile(T.Err);
  CommandResult A = run(weftTool(), {"attach", "--pid", std::to_string(T.PI.Pid), "--spec", Spec,
                                     "--log", Log, "--output-dir", T.Dir});
  ASSERT_EQ(A.ExitCode, 0) << A.Err;
  auto LogHas = [&](llvm::StringRef What) {
    return waitFor(30, [&] { return readFile(Log).find(What.str()) != std::string::npos; });
  };
  ASSERT_TRUE(LogHas("modules were loaded before the profiler attached"));

  writeTracepoints(Spec, "[" + tracepoint("describe", "Describe") + "]");
  ASSERT_TRUE(waitFor(30, [&] { return countEvents(T.Dir, "E", "Program::Describe") >= 3; }))
      << readFile(Log);
  std::vector<TraceEvent> Events = traceEvents(T.Dir);
  for (size_t I = 0; I + 1 < Events.size(); ++I)
    if (Events[I].Ph == "B")
      expectDescribeRecorded(Events[I], Events[I + 1]);

  writeTracepoints(Spec, "[]");
  ASSERT_TRUE(LogHas("1 reverted to their own IL"));
  std::this_thread::sleep_for(std::chrono::milliseconds(300)); // what was recorded is written
  size_t Removed = traceEvents(T.Dir).size();
  ASSERT_TRUE(T.waitTicks(10));
  EXPECT_EQ(traceEvents(T.Dir).size(), Removed);

  writeTracepoints(Spec, "[" + tracepoint("describe", "Describe") + "]");
  ASSERT_TRUE(waitFor(30, [&] { return countEvents(T.Dir, "E", "Program::Describe") >= Removed / 2 + 3; }))
      << readFile(Log);

  CommandResult D = run(weftTool(), {"detach", "--pid", std::to_string(T.PI.Pid)});
  ASSERT_EQ(D.ExitCode, 0) << D.Err;
  ASSERT_TRUE(LogHas("detach: done"));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  size_t Detached = traceEvents(T.Dir).size();
  ASSERT_TRUE(T.waitTicks(10));
  EXPECT_EQ(traceEvents(T.Dir).size(), Detached);
  EXPECT_EQ(T.stop(), 0) << readFile(T.Err);
  T.expectUnchangedOutput();
}

/// The corpus programs every one of whose methods gets a tracepoint: value types passed and
/// returned (boxed with their fields), records, generics, exceptions, closures, iterators and
/// unsafe code in CI; every C# program with WEFT_FULL=1 (F# programs bring FSharp.Core's
/// thousands of methods).
std::vector<std::string> tracepointPrograms() {
  if (!llvm::sys::Process::GetEnv("WEFT_FULL"))
    return {"StructsAndSpans", "Records", "Generics", "Exceptions", "Closures", "Iterators",
            "Unsafe"};
  std::vector<std::string> All;
  for (const std::string &P : corpusPrograms())
    if (!llvm::StringRef(P).startswith("FSharp") && P != "CallHeavy")
      All.push_back(P);
  return All;
}

class TracepointsEverywhere : public ::testing::TestWithParam<std::string> {};

/// Checks that the timeline in \p Dir holds the calls the log (\p Log) says were recorded: more
/// than none, each enter ("B") with its leave ("E") on its thread, as many enters as calls
/// recorded, unless the log counts records dropped (a full ring drops them unpaired).
void expectEveryCallEnteredAndLeft(const std::string &Dir, llvm::StringRef Log) {
  auto [Calls, Dropped] = timelineFigures(Log);
  ASSERT_GT(Calls, 0) << Log.str();
  ASSERT_GE(Dropped, 0) << Log.str();
  std::map<int64_t, std::pair<size_t, size_t>> PerThread; // enters, leaves
  size_t Enters = 0;
  for (const TraceEvent &E : traceEvents(Dir)) {
    EXPECT_NE(E.Tid, 0) << E.Name;
    auto &[B, L] = PerThread[E.Tid];
    (E.Ph == "B" ? B : L) += 1;
    Enters += E.Ph == "B";
  }
  if (Dropped != 0)
    return;
  EXPECT_EQ(Enters, size_t(Calls));
  for (const auto &[Tid, Counts] : PerThread)
    EXPECT_EQ(Counts.first, Counts.second) << "thread " << Tid;
}

// A tracepoint on every method of a corpus program, recording objects two levels deep: the
// program prints what it prints unwoven and exits as it does, no method is left as it was, and
// the timeline is one valid JSON document holding every call recorded, each thread's enters each
// with its leave (unless a full ring dropped records: BigMethod's loops). (A recorder that read
// an object wrongly would take the process down.)
TEST_P(TracepointsEverywhere, TheProgramRunsAsItDoes) {
  std::string Name = GetParam();
  std::string Dir = scratchDir("tp-all-" + Name);
  std::string Spec = Dir + "/weft.json";
  writeTracepoints(Spec, "[{\"name\": \"all\", \"depth\": 2, \"match\": {\"assembly\": \"" + Name +
                             "\"}}]");
  Ran R = weftRun("tp-all-" + Name, {"--spec", Spec, "--output-dir", Dir},
                  {"dotnet", corpusDll(Name)});
  EXPECT_EQ(R.R.ExitCode, 0) << R.R.Err;
  EXPECT_EQ(R.R.Out, expectedOutput(Name));
  EXPECT_EQ(R.Log.find("left as it is"), std::string::npos) << R.Log;
  llvm::Expected<llvm::json::Value> Doc = llvm::json::parse(timelineText(Dir));
  ASSERT_TRUE(bool(Doc)) << llvm::toString(Doc.takeError());
  EXPECT_EQ(countEvents(Dir, "B", ""), 0u);
  expectEveryCallEnteredAndLeft(Dir, R.Log);
}

INSTANTIATE_TEST_SUITE_P(Corpus, TracepointsEverywhere, ::testing::ValuesIn(tracepointPrograms()),
                         [](const auto &Info) { return Info.param; });

// --- garbage collections ---

/// The number after \p Key in \p Text (as "Key N"), or -1.
long long numberAfter(llvm::StringRef Text, llvm::StringRef Key) {
  size_t At = Text.find(Key);
  if (At == llvm::StringRef::npos)
    return -1;
  long long N = -1;
  llvm::StringRef Rest = Text.drop_front(At + Key.size()).ltrim();
  return Rest.consumeInteger(10, N) ? -1 : N;
}

// `weft run --gc verbose` on a program that collects and allocates known amounts: the GC
// callbacks count exactly the collections the runtime counts per generation
// (GC.CollectionCount), each on the timeline with its generation, reason and the heap's sizes
// before and after; the EventPipe session decodes a GCStart and a GCHeapStats for each, and
// allocation ticks that account for what the program allocated. The timeline is one valid JSON
// document at exit.
TEST(ProfilerGc, CollectionsAndAllocationsAreReportedAsTheRuntimeCountsThem) {
  std::string Dir = scratchDir("gc-events");
  Ran R = weftRun("gc-events", {"--gc", "verbose", "--output-dir", Dir},
                  {"dotnet", helperDll("GcProgram")});
  ASSERT_EQ(R.R.ExitCode, 0) << R.R.Err;
  long long Gen[3] = {numberAfter(R.R.Out, "gen0"), numberAfter(R.R.Out, "gen1"),
                      numberAfter(R.R.Out, "gen2")};
  long long Allocated = numberAfter(R.R.Out, "allocated");
  ASSERT_GE(Gen[2], 3) << R.R.Out;
  ASSERT_GT(Allocated, 96ll << 20) << R.R.Out;
  llvm::StringRef Text = R.Log;
  Text = Text.substr(Text.find("gc: ")); // the counts' line
  long long Condemned[3] = {numberAfter(Text, "condemned generation 0:"),
                            numberAfter(Text, ", 1:"), numberAfter(Text, ", 2:")};
  // GC.CollectionCount(g) counts the collections of generation g or older.
  EXPECT_EQ(Condemned[0] + Condemned[1] + Condemned[2], Gen[0]) << Text;
  EXPECT_EQ(Condemned[1] + Condemned[2], Gen[1]) << Text;
  EXPECT_EQ(Condemned[2], Gen[2]) << Text;
  EXPECT_GE(numberAfter(Text, "; "), 8) << Text; // the program's GC.Collect calls, induced
  EXPECT_GE(numberAfter(Text, "from EventPipe"), Gen[0]) << Text;
  EXPECT_GE(numberAfter(Text, "pauses,"), Gen[0]) << Text;
  long long TickBytes = numberAfter(Text, "allocation ticks for");
  EXPECT_GE(TickBytes, Allocated * 9 / 10) << Text;
  EXPECT_LE(TickBytes, Allocated * 12 / 10 + (8 << 20)) << Text;

  // The timeline: one document; a "GC genN" event per collection with plausible sizes.
  llvm::Expected<llvm::json::Value> Doc = llvm::json::parse(timelineText(Dir));
  ASSERT_TRUE(bool(Doc)) << llvm::toString(Doc.takeError());
  long long Collections[3] = {0, 0, 0}, HeapStats = 0, LastLoh = 0;
  double LastTs = -1;
  for (const llvm::json::Value &E : *Doc->getAsObject()->getArray("traceEvents")) {
    const llvm::json::Object &O = *E.getAsObject();
    llvm::StringRef Name = O.getString("name").getValueOr("");
    const llvm::json::Object *Args = O.getObject("args");
    if (Name.startswith("GC gen")) {
      llvm::Optional<int64_t> G = Args->getInteger("generation");
      ASSERT_TRUE(G && *G >= 0 && *G <= 2);
      ++Collections[*G];
      EXPECT_GE(O.getNumber("dur").getValueOr(-1), 0);
      if (O.getNumber("ts").getValueOr(-1) > LastTs) {
        LastTs = O.getNumber("ts").getValueOr(-1);
        LastLoh = Args->getObject("after")->getInteger("loh").getValueOr(0);
      }
    }
    HeapStats += Name == "GCHeapStats";
  }
  EXPECT_EQ(Collections[0], Condemned[0]);
  EXPECT_EQ(Collections[1], Condemned[1]);
  EXPECT_EQ(Collections[2], Condemned[2]);
  EXPECT_GE(HeapStats, Gen[0]);
  // The 64 arrays of 1 MiB the program keeps are in the large object heap after its last
  // collection (the latest to begin: events are written thread by thread).
  EXPECT_GE(LastLoh, 64ll << 20);
  EXPECT_LT(LastLoh, 80ll << 20);
}

// A tracepoint on a method that coverage (a pass that finishes its module at the module's end)
// already wove is refused and logged: the method keeps coverage's body, and the program runs as
// it does.
TEST(ProfilerTracepoints, AMethodAWholeModulePassWoveIsLeftToIt) {
  std::string Dir = scratchDir("tracepoints-coverage");
  std::string Spec = Dir + "/weft.json", Log = Dir + "/weft.log";
  ASSERT_TRUE(writeFile(Spec, "{\"version\": 1, \"rules\": [{\"match\": {\"assembly\": \"Ticker\"}, "
                              "\"passes\": [\"coverage\"]}], \"tracepoints\": [" +
                              tracepoint("describe", "Describe") + "]}"));
  Ticker T("tracepoints-coverage-run", {weftTool(), "run", "--spec", Spec, "--log", Log,
                                        "--output-dir", Dir, "--"},
           {"WEFT_COVERAGE_FILE=" + Dir + "/hits"});
  ASSERT_TRUE(waitFor(30, [&] {
    return readFile(Log).find("tracepoint: its rules' passes finished the module") !=
           std::string::npos;
  })) << readFile(Log);
  ASSERT_TRUE(T.waitTicks(25));
  EXPECT_EQ(T.stop(), 0) << readFile(T.Err);
  T.expectUnchangedOutput();
  EXPECT_EQ(countEvents(Dir, "B", "Program::Describe"), 0u);
}

// --- the Weft EventPipe provider ---

/// The Weft events of the .nettrace file \p Path, as tests/nettrace prints them: each a map of
/// its fields, "event" holding its name.
std::vector<std::map<std::string, std::string>> weftEvents(const std::string &Path) {
  CommandResult R = run("dotnet", {helperDll("NettraceDump"), Path, "Weft"}, {}, 120);
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  std::vector<std::map<std::string, std::string>> Out;
  llvm::SmallVector<llvm::StringRef, 256> Lines;
  llvm::StringRef(R.Out).split(Lines, '\n', -1, false);
  for (llvm::StringRef L : Lines) {
    llvm::SmallVector<llvm::StringRef, 8> Fields;
    L.split(Fields, '\t');
    std::map<std::string, std::string> E{{"event", Fields[0].str()}};
    for (size_t I = 1; I < Fields.size(); ++I)
      E[Fields[I].split('=').first.str()] = Fields[I].split('=').second.str();
    Out.push_back(std::move(E));
  }
  return Out;
}

/// The process `weft run` started, as the profiler's log in it names it (0 if it does not within
/// 30 s): the dotnet process is weft run's child.
long profiledPid(const std::string &Log) {
  long Pid = 0;
  waitFor(30, [&] {
    std::string Text = readFile(Log);
    size_t At = Text.find("weft-profiler[");
    return At != std::string::npos &&
           !llvm::StringRef(Text).substr(At + 14).consumeInteger(10, Pid);
  });
  return Pid;
}

/// `dotnet-trace collect` (the NuGet tool) on process \p Pid for two seconds with \p Providers.
std::string collectTrace(const std::string &Dir, long Pid, const std::string &Providers) {
  std::string Out = Dir + "/" + Providers.substr(0, Providers.find(':')) + "-" +
                    std::to_string(std::hash<std::string>()(Providers) % 1000) + ".nettrace";
  CommandResult R = run(binaryDir() + "/tools/dotnet-trace",
                        {"collect", "-p", std::to_string(Pid), "--providers", Providers,
                         "--duration", "00:00:00:02", "-o", Out},
                        {}, 120);
  EXPECT_EQ(R.ExitCode, 0) << R.Out << R.Err;
  return Out;
}

// dotnet-trace sessions receive what the timeline records as events of the Weft provider: with
// the tracepoint keyword, each call's enter and leave with the method, tracepoints, arguments and
// result as the program printed them, nested per thread as the calls were (Describe around
// Paint); with the GC keyword, the program's induced collections; each keyword only when a
// session asks for it.
TEST(ProfilerEventPipe, DotnetTraceReceivesTheWeftProvidersEvents) {
  std::string Dir = scratchDir("eventpipe");
  std::string Spec = Dir + "/weft.json", Log = Dir + "/weft.log";
  writeTracepoints(Spec, "[" + tracepoint("describe", "Describe") + ", " +
                             tracepoint("paint", "Paint") + ", " + tracepoint("check", "Check") +
                             "]");
  Ticker T("eventpipe-run", {weftTool(), "run", "--spec", Spec, "--gc", "informational", "--log",
                             Log, "--output-dir", Dir, "--"}, {});
  ASSERT_TRUE(T.waitTicks(5)) << readFile(T.Err) << readFile(Log);
  long Pid = profiledPid(Log);
  ASSERT_GT(Pid, 0) << readFile(Log);
  ASSERT_TRUE(waitFor(30, [&] { return countEvents(Dir, "E", "Program::Describe") >= 2; }));

  std::vector<std::map<std::string, std::string>> Calls =
      weftEvents(collectTrace(Dir, Pid, "Weft:0x1:4"));
  std::map<std::string, std::vector<std::string>> Stacks; // by thread
  size_t Describes = 0, Nested = 0;
  for (size_t I = 0; I < Calls.size(); ++I) {
    std::map<std::string, std::string> &E = Calls[I];
    EXPECT_NE(E["event"], "Weft/GarbageCollection"); // not asked for
    std::vector<std::string> &Stack = Stacks[E["ThreadId"]];
    if (E["event"] == "Weft/TracepointEnter") {
      Nested += E["Method"] == "Program::Paint" && !Stack.empty() &&
                Stack.back() == "Program::Describe";
      Stack.push_back(E["Method"]);
      if (E["Method"] == "Program::Describe" && I + 3 < Calls.size()) {
        // Describe(n, ...): its arguments and its result as printed for tick n.
        llvm::Expected<llvm::json::Value> Args = llvm::json::parse(E["Arguments"]);
        ASSERT_TRUE(bool(Args)) << E["Arguments"];
        int64_t N = (*Args->getAsArray())[0].getAsObject()->getInteger("value").getValueOr(-1);
        ASSERT_GE(N, 0) << E["Arguments"];
        EXPECT_EQ(E["Tracepoints"], "[\"describe\"]");
        EXPECT_NE(E["Arguments"].find("\"value\":\"L" + std::to_string(N) + "\""),
                  std::string::npos) << E["Arguments"];
        std::map<std::string, std::string> &Leave = Calls[I + 3]; // after Paint's two
        EXPECT_EQ(Leave["event"], "Weft/TracepointLeave");
        EXPECT_EQ(Leave["Method"], "Program::Describe");
        std::string Line = tickLine(int(N));
        std::string Description = llvm::StringRef(Line).split(' ').second.split(' ').second
                                      .split(' ').second.split(' ').second.split(' ').first.str();
        EXPECT_NE(Leave["Result"].find("\"value\":\"" + Description + "\""), std::string::npos)
            << Leave["Result"];
        ++Describes;
      }
    } else if (E["event"] == "Weft/TracepointLeave") {
      if (Stack.empty())
        continue; // a call under way when the session began
      EXPECT_EQ(Stack.back(), E["Method"]);
      Stack.pop_back();
    }
  }
  EXPECT_GE(Describes, 20u);
  EXPECT_GE(Nested, 20u);

  // The GC keyword alone: the collections the program induces every 25 ticks, no call.
  std::vector<std::map<std::string, std::string>> Collections =
      weftEvents(collectTrace(Dir, Pid, "Weft:0x2:4"));
  size_t Induced = 0;
  for (std::map<std::string, std::string> &E : Collections) {
    EXPECT_EQ(E["event"], "Weft/GarbageCollection");
    Induced += E["Generation"] == "2" && E["Reason"] == "induced";
    EXPECT_GT(std::atoll(E["HeapAfter"].c_str()), 0);
  }
  EXPECT_GE(Induced, 2u);
  EXPECT_EQ(T.stop(), 0) << readFile(T.Err);
  T.expectUnchangedOutput();
}

// A tracepoint that follows the sessions ("enabled": "session") records while a session asks
// for the Weft provider's tracepoint keyword, and only then: none of its calls before the
// session, the session receives them (and the timeline has them), and none once it has ended.
TEST(ProfilerEventPipe, ASessionTracepointRecordsWhileASessionAsks) {
  std::string Dir = scratchDir("eventpipe-session");
  std::string Spec = Dir + "/weft.json", Log = Dir + "/weft.log";
  writeTracepoints(Spec, "[{\"name\": \"describe\", \"match\": {\"assembly\": \"Ticker\", "
                         "\"method\": \"Describe\"}, \"enabled\": \"session\"}]");
  Ticker T("eventpipe-session-run",
           {weftTool(), "run", "--spec", Spec, "--log", Log, "--output-dir", Dir, "--"}, {});
  ASSERT_TRUE(waitFor(30, [&] {
    return readFile(Log).find("methods compiled again with tracepoint code") != std::string::npos;
  })) << readFile(Log);
  long Pid = profiledPid(Log);
  ASSERT_GT(Pid, 0) << readFile(Log);
  ASSERT_TRUE(T.waitTicks(25)) << readFile(T.Err);
  EXPECT_EQ(countEvents(Dir, "B", "Program::Describe"), 0u);

  std::vector<std::map<std::string, std::string>> Events =
      weftEvents(collectTrace(Dir, Pid, "Weft:0x1:4"));
  size_t Received = llvm::count_if(Events, [](std::map<std::string, std::string> &E) {
    return E["event"] == "Weft/TracepointEnter" && E["Method"] == "Program::Describe";
  });
  EXPECT_GE(Received, 20u);
  ASSERT_TRUE(waitFor(30, [&] {
    return readFile(Log).find("no session asks for the tracepoint keyword now") != std::string::npos;
  })) << readFile(Log);
  EXPECT_NE(readFile(Log).find("a session asks for the tracepoint keyword now"), std::string::npos);
  // What the session saw, the timeline has too; then nothing more.
  ASSERT_TRUE(T.waitTicks(10));
  size_t Recorded = countEvents(Dir, "B", "Program::Describe");
  EXPECT_GE(Recorded, Received);
  ASSERT_TRUE(T.waitTicks(25));
  EXPECT_EQ(countEvents(Dir, "B", "Program::Describe"), Recorded);
  EXPECT_EQ(T.stop(), 0) << readFile(T.Err);
  T.expectUnchangedOutput();
}

// The trace pass under `weft run` hands the calls it records to the profiler: a dotnet-trace
// session with the Weft provider's call keyword (0x4) receives them, each with the method, its
// start and duration and the thread (the same thread id as the trace file's), and they are on
// the profiler's timeline too.
TEST(ProfilerEventPipe, DotnetTraceReceivesTheTracePassesCalls) {
  std::string Dir = scratchDir("eventpipe-trace");
  std::string Spec = Dir + "/weft.json", Log = Dir + "/weft.log";
  ASSERT_TRUE(writeFile(Spec, R"({"version": 1, "rules": [{"match": {"assembly": "Ticker", )"
                              R"("method": "Tick"}, "passes": ["trace"]}]})"));
  Ticker T("eventpipe-trace-run", {weftTool(), "run", "--spec", Spec, "--log", Log,
                                   "--output-dir", Dir, "--"},
           {"WEFT_TRACE_FILE=" + Dir + "/trace.json"});
  ASSERT_TRUE(T.waitTicks(5)) << readFile(T.Err) << readFile(Log);
  long Pid = profiledPid(Log);
  ASSERT_GT(Pid, 0) << readFile(Log);
  std::vector<std::map<std::string, std::string>> Calls =
      weftEvents(collectTrace(Dir, Pid, "Weft:0x4:4"));
  std::set<std::string> Threads;
  size_t Ticks = 0;
  for (std::map<std::string, std::string> &E : Calls) {
    EXPECT_EQ(E["event"], "Weft/TraceCall");
    EXPECT_EQ(E["Method"], "Program::Tick");
    EXPECT_GE(std::atof(E["DurationMicroseconds"].c_str()), 0.0);
    EXPECT_GT(std::atof(E["StartMicroseconds"].c_str()), 0.0);
    Threads.insert(E["ThreadId"]);
    ++Ticks;
  }
  EXPECT_GE(Ticks, 20u); // a tick each 20 ms, handed over each 100 ms, for two seconds
  EXPECT_EQ(Threads.size(), 1u);
  EXPECT_EQ(T.stop(), 0) << readFile(T.Err);
  T.expectUnchangedOutput();
  size_t OnTimeline = 0;
  llvm::SmallVector<llvm::StringRef, 256> Lines;
  std::string Timeline = timelineText(Dir);
  llvm::StringRef(Timeline).split(Lines, '\n', -1, false);
  for (llvm::StringRef L : Lines)
    OnTimeline += L.startswith("{\"ph\":\"X\",\"cat\":\"trace\"") &&
                  L.contains("\"name\":\"Program::Tick\"");
  EXPECT_GE(OnTimeline, Ticks);
  EXPECT_NE(readFile(Log).find("trace: the trace pass's calls go on the timeline too"),
            std::string::npos);
}

// --- LTTng ---

/// The names in \p Dir that start with \p Prefix.
std::set<std::string> namesIn(const std::string &Dir, llvm::StringRef Prefix) {
  std::set<std::string> Out;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC))
    if (llvm::sys::path::filename(It->path()).startswith(Prefix))
      Out.insert(It->path());
  return Out;
}

/// An LTTng session daemon for a test, with LTTNG_HOME in a folder of the test's own: the one
/// that runs already (for root, the root session daemon), or one started for the test and
/// stopped with it (for root, the root session daemon, without kernel tracing), its run folder
/// and the shared-memory files LTTng-UST makes removed if they were not there before: the
/// machine is left as it was.
class LttngDaemon {
public:
  LttngDaemon(std::string Lttng, const std::string &Dir)
      : Lttng(std::move(Lttng)), Home(Dir + "/lttng-home"),
        RunDir(getuid() == 0 ? "/var/run/lttng" : Home + "/.lttng") {
    EXPECT_FALSE(llvm::sys::fs::create_directories(Home));
    ShmBefore = namesIn("/dev/shm", "lttng-ust-");
    HadRunDir = llvm::sys::fs::exists(RunDir);
  }
  /// Starts a daemon if none answers.
  void start() {
    if (lttng({"list"}).ExitCode == 0)
      return; // a daemon runs already: used, and left running
    llvm::ErrorOr<std::string> Sessiond = llvm::sys::findProgramByName("lttng-sessiond");
    ASSERT_TRUE(bool(Sessiond)) << "lttng-sessiond is not installed (lttng-tools is)";
    std::vector<std::string> Args = {"--daemonize"};
    if (getuid() == 0)
      Args.push_back("--no-kernel");
    CommandResult R = run(*Sessiond, Args, env(), 60);
    ASSERT_EQ(R.ExitCode, 0) << "lttng-sessiond did not start: " << R.Out << R.Err;
    std::string Pid = readFile(RunDir + "/lttng-sessiond.pid");
    ASSERT_FALSE(llvm::StringRef(Pid).trim().getAsInteger(10, Started)) << Pid;
    ASSERT_GT(Started, 0);
  }
  ~LttngDaemon() {
    if (Started > 0 && ::kill(Started, SIGTERM) == 0)
      waitFor(30, [&] { return ::kill(Started, 0) != 0; });
    if (Started > 0 && !HadRunDir) {
      run("rm", {"-rf", RunDir});
    }
    for (const std::string &F : namesIn("/dev/shm", "lttng-ust-"))
      if (!ShmBefore.count(F))
        llvm::sys::fs::remove(F);
  }
  /// LTTNG_HOME for lttng, the daemon and the traced program.
  std::vector<std::string> env() const { return {"LTTNG_HOME=" + Home}; }
  /// `lttng ARGS`, never starting a daemon of its own.
  CommandResult lttng(std::vector<std::string> Args) const {
    Args.insert(Args.begin(), "--no-sessiond");
    return run(Lttng, Args, env(), 60);
  }

private:
  std::string Lttng, Home, RunDir;
  std::set<std::string> ShmBefore;
  bool HadRunDir = false;
  int Started = 0;
};

// With --lttng, where LTTng-UST is installed, the timeline's records are also LTTng-UST events
// of the provider weft: the calls' enter and leave with arguments and results as the program
// printed them, and its induced collections. The test runs its own session (and a session daemon
// if none runs); it fails where LTTng's packages are installed and a session cannot run, and is
// skipped, saying why, only where they are not installed.
TEST(ProfilerLttng, TimelineRecordsAreLttngEventsWhereASessionCanRun) {
  if (!llvm::sys::fs::exists(binaryDir() + "/cli/libweft_lttng.so"))
    GTEST_SKIP() << "libweft_lttng.so was not built (LTTng-UST is not installed)";
  llvm::ErrorOr<std::string> Lttng = llvm::sys::findProgramByName("lttng");
  llvm::ErrorOr<std::string> Babeltrace = llvm::sys::findProgramByName("babeltrace2");
  if (!Lttng || !Babeltrace)
    GTEST_SKIP() << "lttng or babeltrace2 is not installed (./dev setup installs them)";
  std::string Dir = scratchDir("lttng");
  LttngDaemon Daemon(*Lttng, Dir);
  ASSERT_NO_FATAL_FAILURE(Daemon.start());
  std::string Session = "weft-test-" + std::to_string(getpid());
  CommandResult Created = Daemon.lttng({"create", Session, "--output=" + Dir + "/trace"});
  ASSERT_EQ(Created.ExitCode, 0) << "no LTTng session: " << Created.Out << Created.Err;
  auto Destroy = llvm::make_scope_exit([&] { Daemon.lttng({"destroy", Session}); });
  CommandResult Enabled =
      Daemon.lttng({"enable-event", "--session=" + Session, "--userspace", "weft:*"});
  ASSERT_EQ(Enabled.ExitCode, 0) << Enabled.Out << Enabled.Err;
  ASSERT_EQ(Daemon.lttng({"start", Session}).ExitCode, 0);

  std::string Spec = Dir + "/weft.json", Log = Dir + "/weft.log";
  writeTracepoints(Spec, "[" + tracepoint("describe", "Describe") + "]");
  {
    Ticker T("lttng-run",
             {weftTool(), "run", "--spec", Spec, "--lttng", "--gc", "informational", "--log", Log,
              "--output-dir", Dir, "--"},
             Daemon.env());
    ASSERT_TRUE(T.waitTicks(60)) << readFile(T.Err) << readFile(Log);
    EXPECT_EQ(T.stop(), 0) << readFile(T.Err);
    T.expectUnchangedOutput();
  }
  ASSERT_EQ(Daemon.lttng({"stop", Session}).ExitCode, 0);
  EXPECT_NE(readFile(Log).find("lttng: the provider 'weft' is registered"), std::string::npos)
      << readFile(Log);
  CommandResult Read = run(*Babeltrace, {Dir + "/trace"}, {}, 120);
  ASSERT_EQ(Read.ExitCode, 0) << Read.Err;
  size_t Enters = 0, Leaves = 0, Induced = 0;
  llvm::SmallVector<llvm::StringRef, 512> Lines;
  llvm::StringRef(Read.Out).split(Lines, '\n', -1, false);
  for (llvm::StringRef L : Lines) {
    if (L.contains("weft:tracepoint_enter") && L.contains("method = \"Program::Describe\"")) {
      // arguments = "[{\"name\":\"n\",\"type\":\"int32\",\"value\":N},{...\"value\":\"LN\"}..."
      llvm::StringRef Rest = L.split("\\\"value\\\":").second;
      int N = -1;
      ASSERT_FALSE(Rest.consumeInteger(10, N)) << L.str();
      EXPECT_TRUE(L.contains("\\\"value\\\":\\\"L" + std::to_string(N) + "\\\"")) << L.str();
      ++Enters;
    }
    Leaves += L.contains("weft:tracepoint_leave") && L.contains("Program::Describe");
    Induced += L.contains("weft:collection") && L.contains("generation = 2") &&
               L.contains("reason = \"induced\"");
  }
  EXPECT_GE(Enters, 40u) << Read.Out.substr(0, 2000);
  EXPECT_GE(Leaves, 40u);
  EXPECT_GE(Induced, 2u);
}

} // namespace
