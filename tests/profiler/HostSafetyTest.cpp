//===- tests/profiler/HostSafetyTest.cpp - The profiler never hurts its host -===//
//
// tests/host-safety under `weft run`: a collectible context loaded, instrumented (rules and
// tracepoints), run, unloaded and collected a hundred times while its spec is edited, with the
// program's output and memory unchanged and nothing of the unloaded modules kept; an object
// graph too big to record whole, recorded as JSON within its budget; collections that never wait
// for a class description; a timeline made only when something is recorded, never through a name
// that is there already.
//
//===----------------------------------------------------------------------===//
#include "runtime-profiler/Profiler.h"
#include "runtime-profiler/Recorder.h"
#include "tests/support/Env.h"
#include "tests/support/Weave.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cstdlib>
#include <gtest/gtest.h>
#include <iostream>
#include <map>
#include <sys/stat.h>

using namespace weft;
using namespace weft::test;

namespace {

// What managed code calls must not throw: a C++ exception into the runtime ends the process.
static_assert(noexcept(prof::Recorder::enter(0)));
static_assert(noexcept(prof::Recorder::value(0, 0, nullptr)));
static_assert(noexcept(prof::Recorder::leave(0)));
static_assert(noexcept(prof::Profiler::traceName(0, nullptr, 0)));
static_assert(noexcept(prof::Profiler::traceCalls(0, nullptr, 0)));

/// tests/host-safety copied into a folder of its own, with the probes entry-exit may name.
std::string programFolder(llvm::StringRef Name) {
  std::string Dir = scratchDir(Name);
  std::string Built = llvm::sys::path::parent_path(helperDll("HostSafety")).str();
  for (const char *F : {"HostSafety.dll", "HostSafety.runtimeconfig.json"})
    EXPECT_FALSE(llvm::sys::fs::copy_file(Built + "/" + F, Dir + "/" + F)) << F;
  EXPECT_FALSE(llvm::sys::fs::copy_file(probesDll(), Dir + "/Probes.dll"));
  return Dir;
}

std::string spec(llvm::StringRef Rules, llvm::StringRef Tracepoints) {
  return ("{\"version\": 1, \"rules\": " + Rules + ", \"tracepoints\": " + Tracepoints + "}").str();
}

std::string tracepoint(llvm::StringRef Name, llvm::StringRef Method, unsigned Depth) {
  return ("{\"name\": \"" + Name + "\", \"depth\": " + llvm::Twine(Depth) +
          ", \"match\": {\"assembly\": \"HostSafety\", \"method\": \"" + Method + "\"}}")
      .str();
}

struct Ran {
  CommandResult R;
  std::string Log, Dir;
};

/// `weft run --spec SPEC` of tests/host-safety with \p Args, its output in \p Dir.
Ran runProgram(const std::string &Dir, const std::string &Spec, std::vector<std::string> Args,
               std::vector<std::string> Env = {}, std::vector<std::string> Command = {}) {
  Ran Out;
  Out.Dir = Dir;
  std::string Log = Dir + "/weft.log";
  std::vector<std::string> All = {"run", "--spec", Spec, "--log", Log, "--output-dir", Dir, "--"};
  if (Command.empty())
    Command = {"dotnet", Dir + "/HostSafety.dll"};
  All.insert(All.end(), Command.begin(), Command.end());
  All.insert(All.end(), Args.begin(), Args.end());
  Out.R = run(weftTool(), All, Env, 120);
  Out.Log = readFile(Log);
  return Out;
}

/// The timeline files in \p Dir.
std::vector<std::string> timelines(const std::string &Dir) {
  std::vector<std::string> Out;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC))
    if (llvm::sys::path::filename(It->path()).startswith("weft-timeline-"))
      Out.push_back(It->path());
  return Out;
}

/// The "B" and "E" events of a whole timeline, which must be one JSON document.
std::vector<llvm::json::Object> events(const std::string &Path) {
  std::vector<llvm::json::Object> Out;
  llvm::Expected<llvm::json::Value> Doc = llvm::json::parse(readFile(Path));
  EXPECT_TRUE(bool(Doc)) << (Doc ? "" : llvm::toString(Doc.takeError()));
  if (!Doc)
    return Out;
  const llvm::json::Array *All = Doc->getAsObject()->getArray("traceEvents");
  EXPECT_TRUE(All);
  for (const llvm::json::Value &E : All ? *All : llvm::json::Array())
    if (const llvm::json::Object *O = E.getAsObject())
      if (O->getString("ph") == llvm::Optional<llvm::StringRef>("B") ||
          O->getString("ph") == llvm::Optional<llvm::StringRef>("E"))
        Out.push_back(*O);
  return Out;
}

/// The number after \p Key in \p Text (as "Key N"). A text without it fails the test (a bound
/// checked on a number that was not there would pass whatever the profiler did), and gives -1.
long long numberAfter(llvm::StringRef Text, llvm::StringRef Key) {
  size_t At = Text.find(Key);
  long long N = -1;
  if (At == llvm::StringRef::npos ||
      Text.drop_front(At + Key.size()).ltrim().consumeInteger(10, N)) {
    ADD_FAILURE() << "no number after '" << Key.str() << "' in:\n" << Text.str();
    return -1;
  }
  return N;
}

/// What the profiler holds at exit (its "recorder: ..." line), by name.
std::map<std::string, long long> held(llvm::StringRef Log) {
  size_t At = Log.find("held at exit:");
  llvm::StringRef Line = At == llvm::StringRef::npos ? "" : Log.substr(At).split('\n').first;
  return {{"modules", numberAfter(Line, "held at exit:")},
          {"read", numberAfter(Line, "modules listed,")},
          {"slots", numberAfter(Line, "read,")},
          {"classes", numberAfter(Line, "free),")}};
}

// A collectible context that loads the program's own assembly, runs it, unloads and is collected,
// a hundred times, while the program itself edits the spec every tenth time (no tracepoint, one,
// two, one disabled and another three levels deep, in turn). The rules weave every load of the
// module at its first compilations (entry-exit, single-ret) and the tracepoints through ReJIT:
// the program prints what it prints without weft, every context is collected, its memory stays
// flat, and the profiler holds at exit what the modules still loaded need, not a trace of the
// hundred unloaded ones (their module IDs, tracepoint slots, class descriptions).
TEST(HostSafety, ACollectibleContextComesAndGoesAHundredTimes) {
  std::string Dir = programFolder("host-unload");
  std::string Spec = Dir + "/weft.json", Probes = Dir + "/probes.log";
  ASSERT_TRUE(writeFile(
      Spec,
      spec("[{\"match\": {\"assembly\": \"HostSafety\", \"type\": \"Plugin\", \"method\": "
           "\"Run\"}, \"passes\": [{\"name\": \"entry-exit\", \"options\": "
           "{\"probe-assembly\": \"Probes.dll\", \"probe-type\": \"Weft.Probes.Recorder\"}}]}]",
           "[]")));
  const int Iterations = 100;
  Ran R = runProgram(Dir, Spec, {"unload", std::to_string(Iterations), Spec},
                     {"WEFT_PROBE_LOG=" + Probes});
  ASSERT_EQ(R.R.ExitCode, 0) << R.R.Err << R.Log;

  std::string Expected;
  for (int I = 1; I <= Iterations; ++I) {
    int Used = 3 * I + 1 + int(std::to_string(I).size()) + 1 + I % 7 + 2;
    Expected += "iteration " + std::to_string(I) + ": " + std::to_string(Used) + "\n";
  }
  EXPECT_EQ(R.R.Out, Expected + "not unloaded: 0\n");

  // The rules wove every load of the module: the probes saw each iteration's Run.
  EXPECT_EQ(llvm::StringRef(readFile(Probes)).count("enter HostSafety.Plugin::Run"),
            size_t(Iterations))
      << R.Log;
  // The tracepoints followed the edits. The runtime compiles no collectible code again (ReJIT),
  // so those on the context's own methods are logged and left; those on the host's method that
  // is handed the context's objects record them, each context's classes described anew.
  EXPECT_EQ(R.Log.find("an unexpected error"), std::string::npos) << R.Log;
  EXPECT_EQ(R.Log.find("HostSafety.dll: method"), std::string::npos) << R.Log; // left alone
  EXPECT_NE(R.Log.find("spec edited: tracepoints now observe, use, count"), std::string::npos)
      << R.Log;
  EXPECT_NE(R.Log.find("HostSafety.dll: tracepoints: 2 methods named, in a collectible context"),
            std::string::npos)
      << R.Log;
  std::vector<std::string> Files = timelines(Dir);
  ASSERT_EQ(Files.size(), 1u) << R.Log;
  size_t Enters = 0, Leaves = 0, Observed = 0, Described = 0;
  for (const llvm::json::Object &E : events(Files[0])) {
    bool Enter = E.getString("ph") == llvm::Optional<llvm::StringRef>("B");
    (Enter ? Enters : Leaves) += 1;
    if (!Enter ||
        E.getString("name") != llvm::Optional<llvm::StringRef>("HostSafety.Program::Observe"))
      continue;
    ++Observed;
    // The list's items: an array of the context's class, and its first element, whole.
    const llvm::json::Array *A = E.getObject("args")->getArray("arguments");
    const llvm::json::Object *List = A ? (*A)[0].getAsObject()->getObject("value") : nullptr;
    if (!List || !List->getObject("fields"))
      continue;
    EXPECT_EQ(List->getString("type"),
              llvm::Optional<llvm::StringRef>("System.Collections.Generic.List`1"));
    const llvm::json::Object *Items = List->getObject("fields")->getObject("_items");
    ASSERT_TRUE(Items) << llvm::formatv("{0}", llvm::json::Value(llvm::json::Object(*List))).str();
    EXPECT_EQ(Items->getString("type"), llvm::Optional<llvm::StringRef>("HostSafety.Widget[]"));
    Described += Items->getInteger("length").getValueOr(0) >= 2;
  }
  EXPECT_EQ(Enters, Leaves);
  EXPECT_GE(Observed, 20u) << R.Log;
  EXPECT_GE(Described, 20u) << R.Log;

  // Memory: flat from the tenth iteration to the last.
  long long At10 = numberAfter(R.R.Err, "rss at 10:"),
            AtEnd = numberAfter(R.R.Err, "rss at " + std::to_string(Iterations) + ":");
  ASSERT_GT(At10, 0) << R.R.Err;
  ASSERT_GT(AtEnd, 0) << R.R.Err;
  std::cout << "resident memory at iteration 10: " << At10 << " kB, at " << Iterations << ": "
            << AtEnd << " kB\n";
  EXPECT_LT(AtEnd - At10, 12 * 1024) << R.R.Err;
  // What the profiler holds is what the modules loaded at exit need.
  std::map<std::string, long long> H = held(R.Log);
  std::cout << "held at exit: " << H["modules"] << " modules listed, " << H["read"] << " read, "
            << H["slots"] << " tracepoint slots, " << H["classes"] << " class descriptions\n";
  EXPECT_GE(H["modules"], 1) << R.Log;
  EXPECT_LT(H["modules"], 40) << R.Log;
  EXPECT_LE(H["read"], 2) << R.Log;
  EXPECT_LE(H["slots"], 4) << R.Log;
  EXPECT_LT(H["classes"], 20) << R.Log;
}

// A graph of objects three wide and nine deep, each with long strings, control characters,
// non-ASCII text and unpaired surrogates, recorded eight levels deep: each value is one JSON value
// within the budget, cut where it must be (strings end in "...", the fields left out are counted
// in a "..." member), with what was kept exact.
TEST(HostSafety, AGraphTooBigToRecordIsCutAndStaysJson) {
  std::string Dir = programFolder("host-deep");
  std::string Spec = Dir + "/weft.json";
  ASSERT_TRUE(writeFile(Spec, spec("[]", "[" + tracepoint("inspect", "Inspect", 8) + "]")));
  Ran R = runProgram(Dir, Spec, {"deep"});
  ASSERT_EQ(R.R.ExitCode, 0) << R.R.Err << R.Log;
  EXPECT_EQ(R.R.Out, "inspected -1521\n");
  std::vector<std::string> Files = timelines(Dir);
  ASSERT_EQ(Files.size(), 1u) << R.Log;
  std::string Text = readFile(Files[0]);
  ASSERT_TRUE(bool(llvm::json::parse(Text))) << Text.substr(0, 2000);

  // Each call's line: the value's text as written, between its member name and the line's end.
  llvm::SmallVector<llvm::StringRef, 16> Lines;
  llvm::StringRef(Text).split(Lines, '\n', -1, false);
  size_t Checked = 0;
  for (llvm::StringRef L : Lines) {
    if (!L.startswith("{\"ph\":\"B\""))
      continue;
    llvm::StringRef Lead = "\"arguments\":[{\"name\":\"root\",\"type\":\"class HostSafety.Level\","
                           "\"value\":";
    llvm::StringRef Next = "},{\"name\":\"round\"";
    size_t At = L.find(Lead), End = L.find(Next);
    ASSERT_TRUE(At != std::string::npos && End != std::string::npos) << L.substr(0, 400);
    llvm::StringRef Value = L.slice(At + Lead.size(), End);
    EXPECT_LE(Value.size(), prof::Recorder::ValueBudget);
    EXPECT_GT(Value.size(), prof::Recorder::ValueBudget * 3 / 4); // the budget is used
    llvm::Expected<llvm::json::Value> V = llvm::json::parse(Value);
    ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError()) << "\n" << Value;
    const llvm::json::Object *Root = V->getAsObject();
    ASSERT_TRUE(Root);
    EXPECT_EQ(Root->getString("type"), llvm::Optional<llvm::StringRef>("HostSafety.Level"));
    const llvm::json::Object *Fields = Root->getObject("fields");
    ASSERT_TRUE(Fields) << Value;
    // Kept exact where it fits; cut with a marker where it does not.
    llvm::StringRef Control = Fields->getString("Control").getValueOr("");
    llvm::StringRef Foreign = Fields->getString("Foreign").getValueOr("");
    llvm::StringRef Broken = Fields->getString("Broken").getValueOr("");
    EXPECT_TRUE(Control.startswith("tab\there\nnew line \x01\x1f \"quoted\" back\\slash") ||
                Control.endswith("..."))
        << Control;
    EXPECT_TRUE(Foreign.startswith("\xC3\xBCn\xC3\xAF") &&
                (Foreign.contains("\xF0\x9F\x98\x80") || Foreign.endswith("...")))
        << Foreign;
    EXPECT_TRUE(Broken.startswith("lone \xEF\xBF\xBD high") || Broken.endswith("...")) << Broken;
    EXPECT_TRUE(Value.contains("\"...\":")) << Value;
    EXPECT_TRUE(Value.contains("...\"")) << Value;
    ++Checked;
  }
  EXPECT_EQ(Checked, 3u) << R.Log;
}

// The describer, held back (a test setting makes it sleep 400 ms before each class, as a loaded
// machine might), describes 60 new classes one after the other while the program hands an object
// of each to a recorded method and another thread collects all along: no call waits longer than
// its bound (20 ms), and a collection not even that (a call stops waiting when the runtime begins
// to suspend threads); the values met before their class was described say so, and a class
// described meanwhile is recorded whole the next time.
TEST(HostSafety, NoCollectionWaitsForASlowDescription) {
  std::string Dir = programFolder("host-slow-describe");
  std::string Spec = Dir + "/weft.json";
  ASSERT_TRUE(writeFile(Spec, spec("[]", "[" + tracepoint("take", "Take", 1) + "]")));
  Ran R = runProgram(Dir, Spec, {"classes", "60", "again"}, {"WEFT_TEST_DESCRIBE_DELAY_MS=400"});
  ASSERT_EQ(R.R.ExitCode, 0) << R.R.Err << R.Log;
  EXPECT_EQ(R.R.Out, "taken 120\nagain 2\n");
  std::cout << R.R.Err;
  llvm::StringRef Figures = R.Log.substr(std::min(R.Log.size(), R.Log.find("recorder: ")));
  long long Longest = numberAfter(Figures, "the longest wait");
  long long Late = numberAfter(Figures, "us,");
  ASSERT_GE(Longest, 0) << R.Log;
  EXPECT_LT(Longest, 100 * 1000) << R.Log; // 20 ms, and what a loaded machine adds to it
  long long Stops = numberAfter(Figures, "their class was described,");
  long long Suspension = numberAfter(Figures, "waited for a call");
  EXPECT_GE(Stops, 1) << R.Log; // the collector's suspensions ended waits
  std::cout << "longest wait " << Longest << " us, longest a suspension waited " << Suspension
            << " us\n";
  EXPECT_LT(Suspension, 50 * 1000) << R.Log;
  EXPECT_GE(Late, 30) << R.Log;
  // The collections did not wait for the describer (400 ms a class).
  double Collection = 0;
  size_t At = R.R.Err.find("longest ");
  ASSERT_NE(At, std::string::npos) << R.R.Err;
  Collection = std::atof(R.R.Err.c_str() + At + 8);
  EXPECT_LT(Collection, 150) << R.R.Err;
  // Not described in time at first; described for the next call.
  std::vector<std::string> Files = timelines(Dir);
  ASSERT_EQ(Files.size(), 1u) << R.Log;
  size_t NotInTime = 0, Whole = 0;
  for (const llvm::json::Object &E : events(Files[0]))
    if (const llvm::json::Array *A = E.getObject("args")->getArray("arguments")) {
      const llvm::json::Value *V = (*A)[0].getAsObject()->get("value");
      NotInTime += V->getAsString() == llvm::Optional<llvm::StringRef>("<not described in time>");
      const llvm::json::Object *O = V->getAsObject();
      Whole += O && O->getString("type").getValueOr("").startswith("HostSafety.Pair`2") &&
               O->getObject("fields");
    }
  EXPECT_GE(NotInTime, 30u);
  EXPECT_GE(Whole, 1u);
}

// Many new classes, described as fast as this machine does it, while another thread collects:
// how long calls waited for descriptions, and the collections' pauses, are reported.
TEST(HostSafety, ManyNewClassesWaitLittle) {
  std::string Dir = programFolder("host-many-classes");
  std::string Spec = Dir + "/weft.json";
  ASSERT_TRUE(writeFile(Spec, spec("[]", "[" + tracepoint("take", "Take", 1) + "]")));
  Ran R = runProgram(Dir, Spec, {"classes", "2000"});
  ASSERT_EQ(R.R.ExitCode, 0) << R.R.Err << R.Log;
  EXPECT_EQ(R.R.Out, "taken 4000\n");
  size_t At = R.Log.find("recorder: ");
  ASSERT_NE(At, std::string::npos) << R.Log;
  std::cout << R.Log.substr(At, R.Log.find('\n', At) - At) << "\n" << R.R.Err;
  long long Longest = numberAfter(R.Log.substr(At), "the longest wait");
  EXPECT_GE(numberAfter(R.Log.substr(At), "recorder:"), 2000);
  EXPECT_LT(Longest, 100 * 1000) << R.Log;
}

// A process whose tracepoints never fire leaves no timeline; one that records makes its file
// private (0600) and never through a name that is there already: a link left at its name (here
// made by the shell that becomes the program, so its name is the program's) is neither followed
// nor replaced, and the records go to the next name.
TEST(HostSafety, ATimelineIsMadeOnlyForRecordsAndNeverThroughALink) {
  std::string Dir = programFolder("host-timeline-file");
  std::string Spec = Dir + "/weft.json";
  ASSERT_TRUE(writeFile(Spec, spec("[]", "[" + tracepoint("unused", "Use", 1) + "]")));
  Ran Quiet = runProgram(Dir, Spec, {"deep"});
  ASSERT_EQ(Quiet.R.ExitCode, 0) << Quiet.R.Err << Quiet.Log;
  EXPECT_TRUE(timelines(Dir).empty());
  EXPECT_NE(Quiet.Log.find("0 calls recorded; no records, no file (0 dropped)"), std::string::npos)
      << Quiet.Log;

  ASSERT_TRUE(writeFile(Spec, spec("[]", "[" + tracepoint("inspect", "Inspect", 1) + "]")));
  std::string Victim = Dir + "/victim.txt";
  ASSERT_TRUE(writeFile(Victim, "precious\n"));
  Ran Linked = runProgram(
      Dir, Spec, {"deep"}, {},
      {"sh", "-c",
       "ln -s \"$0\" \"$1/weft-timeline-$$.json\" && exec dotnet \"$1/HostSafety.dll\" \"$2\"",
       Victim, Dir});
  ASSERT_EQ(Linked.R.ExitCode, 0) << Linked.R.Err << Linked.Log;
  EXPECT_EQ(readFile(Victim), "precious\n");
  std::vector<std::string> Files = timelines(Dir);
  ASSERT_EQ(Files.size(), 2u) << Linked.Log;
  std::sort(Files.begin(), Files.end());
  std::string Link = Files[1].size() < Files[0].size() ? Files[1] : Files[0];
  std::string Made = Link == Files[0] ? Files[1] : Files[0];
  EXPECT_TRUE(llvm::StringRef(Made).endswith("-2.json")) << Made;
  struct stat St;
  ASSERT_EQ(::lstat(Link.c_str(), &St), 0);
  EXPECT_TRUE(S_ISLNK(St.st_mode)) << Link;
  ASSERT_EQ(::lstat(Made.c_str(), &St), 0);
  EXPECT_TRUE(S_ISREG(St.st_mode));
  EXPECT_EQ(St.st_mode & 0777, 0600u);
  EXPECT_EQ(events(Made).size(), 6u);
  EXPECT_NE(Linked.Log.find("timeline: made " + Made), std::string::npos) << Linked.Log;
}

} // namespace
