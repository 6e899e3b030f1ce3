//===- tests/profiler/TraceTimelineTest.cpp - The trace pass's timeline ---===//
//
// tests/timeline woven with `trace` (offline, and by `weft run`) runs on CoreCLR: its timeline
// holds every call it made, nested per thread as the program called, and its table's counts,
// inclusive and exclusive times agree with the timeline.
//
//===----------------------------------------------------------------------===//
#include "tests/support/Env.h"
#include "tests/support/Weave.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

using namespace weft;
using namespace weft::test;

namespace {

struct Call {
  std::string Name;
  int64_t Tid = 0;
  double Ts = 0, Dur = 0;
  double end() const { return Ts + Dur; }
};

struct Timeline {
  std::vector<Call> Calls;
  int64_t Total = -1, Recorded = -1, Dropped = -1;
};

struct Row {
  int64_t Calls = 0, Inclusive = 0, Exclusive = 0;
};

struct Traced {
  CommandResult Run;
  Timeline Events;
  std::map<std::string, Row> Table; // by method name without "Program::"
  std::string Dir;
};

/// Timestamps are nanoseconds written as microseconds with three decimals.
constexpr double Slack = 0.0015;

Timeline readTimeline(const std::string &Path) {
  Timeline T;
  llvm::Expected<llvm::json::Value> Doc = llvm::json::parse(readFile(Path));
  if (!Doc) {
    ADD_FAILURE() << Path << " is not JSON: " << llvm::toString(Doc.takeError());
    return T;
  }
  const llvm::json::Object *Top = Doc->getAsObject();
  const llvm::json::Array *Events = Top ? Top->getArray("traceEvents") : nullptr;
  const llvm::json::Object *Other = Top ? Top->getObject("otherData") : nullptr;
  if (!Events || !Other) {
    ADD_FAILURE() << Path << " has no traceEvents or otherData";
    return T;
  }
  T.Total = Other->getInteger("calls").getValueOr(-1);
  T.Recorded = Other->getInteger("recorded").getValueOr(-1);
  T.Dropped = Other->getInteger("dropped").getValueOr(-1);
  for (const llvm::json::Value &V : *Events) {
    const llvm::json::Object *E = V.getAsObject();
    EXPECT_TRUE(E && E->getString("ph") == llvm::StringRef("X"));
    if (!E)
      continue;
    Call C;
    C.Name = E->getString("name").getValueOr("").str();
    C.Tid = E->getInteger("tid").getValueOr(-1);
    C.Ts = E->getNumber("ts").getValueOr(-1);
    C.Dur = E->getNumber("dur").getValueOr(-1);
    EXPECT_GE(C.Ts, 0) << C.Name;
    EXPECT_GE(C.Dur, 0) << C.Name;
    T.Calls.push_back(std::move(C));
  }
  return T;
}

std::map<std::string, Row> readTable(const std::string &Path) {
  std::map<std::string, Row> Out;
  llvm::SmallVector<llvm::StringRef, 16> Lines;
  std::string Text = readFile(Path);
  llvm::StringRef(Text).split(Lines, '\n', -1, false);
  EXPECT_FALSE(Lines.empty()) << Path;
  if (Lines.empty())
    return Out;
  EXPECT_EQ(Lines[0], "calls\tinclusive_us\texclusive_us\tmethod");
  for (llvm::StringRef L : llvm::ArrayRef<llvm::StringRef>(Lines).drop_front()) {
    llvm::SmallVector<llvm::StringRef, 4> Cells;
    L.split(Cells, '\t');
    EXPECT_EQ(Cells.size(), 4u) << L.str();
    if (Cells.size() != 4)
      continue;
    Row R;
    EXPECT_FALSE(Cells[0].getAsInteger(10, R.Calls) || Cells[1].getAsInteger(10, R.Inclusive) ||
                 Cells[2].getAsInteger(10, R.Exclusive))
        << L.str();
    llvm::StringRef Name = Cells[3];
    Name.consume_front("Program::");
    Out[Name.str()] = R;
  }
  return Out;
}

std::string shortName(llvm::StringRef Name) {
  Name.consume_front("Program::");
  return Name.str();
}

/// The calls of tests/timeline, run without arguments, per method.
const std::map<std::string, int64_t> &expectedCalls() {
  static const std::map<std::string, int64_t> Calls = {
      {"Fib", 2 * 1973}, {"Outer", 2}, {"Middle", 20}, {"Inner", 40}, {"Nap", 2},
      {"Work", 2},       {"Main", 1},  {".cctor", 1}};
  return Calls;
}

std::string programDll() { return helperDll("TimelineProgram"); }

/// A folder holding tests/timeline (woven if \p Pass is given) and its runtime config.
std::string programFolder(const std::string &Tag, llvm::StringRef Pass) {
  std::string Dir = scratchDir("trace-timeline-" + Tag);
  std::string Dll = programDll();
  EXPECT_FALSE(llvm::sys::fs::copy_file(Dll.substr(0, Dll.size() - 4) + ".runtimeconfig.json",
                                        Dir + "/TimelineProgram.runtimeconfig.json"));
  if (Pass.empty()) {
    EXPECT_FALSE(llvm::sys::fs::copy_file(Dll, Dir + "/TimelineProgram.dll"));
    return Dir;
  }
  CommandResult W = run(weftTool(), {"weave", Dll, "-o", Dir + "/TimelineProgram.dll", "--pass",
                                     Pass.str(), "--verify-each"});
  EXPECT_EQ(W.ExitCode, 0) << W.Err;
  return Dir;
}

Traced readTrace(std::string Dir, CommandResult Run) {
  Traced T;
  T.Run = std::move(Run);
  T.Dir = std::move(Dir);
  EXPECT_EQ(T.Run.ExitCode, 0) << T.Run.Err.substr(0, 2000);
  if (llvm::sys::fs::exists(T.Dir + "/trace.json"))
    T.Events = readTimeline(T.Dir + "/trace.json");
  T.Table = readTable(T.Dir + "/trace.json.txt");
  return T;
}

/// tests/timeline woven offline with \p Pass, run with \p Args.
Traced traceOffline(const std::string &Tag, llvm::StringRef Pass,
                    std::vector<std::string> Args = {}, std::vector<std::string> Env = {}) {
  std::string Dir = programFolder(Tag, Pass);
  std::vector<std::string> Command{Dir + "/TimelineProgram.dll"};
  Command.insert(Command.end(), Args.begin(), Args.end());
  Env.push_back("WEFT_TRACE_FILE=" + Dir + "/trace.json");
  return readTrace(Dir, run("dotnet", Command, Env, 300));
}

/// The calls of one thread in the order they began (an enclosing call before what it encloses).
std::map<int64_t, std::vector<const Call *>> byThread(const Timeline &T) {
  std::map<int64_t, std::vector<const Call *>> Out;
  for (const Call &C : T.Calls)
    Out[C.Tid].push_back(&C);
  for (auto &[Tid, Calls] : Out)
    std::stable_sort(Calls.begin(), Calls.end(), [](const Call *A, const Call *B) {
      return A->Ts != B->Ts ? A->Ts < B->Ts : A->Dur > B->Dur;
    });
  return Out;
}

/// Every call lies within the call that was open when it began (or begins after it ended): the
/// calls of each thread nest. Returns each method's callers, by name ("" for none).
std::map<std::string, std::set<std::string>> expectNested(const Timeline &T) {
  std::map<std::string, std::set<std::string>> Callers;
  for (auto &[Tid, Calls] : byThread(T)) {
    std::vector<const Call *> Open;
    for (const Call *C : Calls) {
      while (!Open.empty() && Open.back()->end() <= C->Ts + Slack)
        Open.pop_back();
      if (!Open.empty()) {
        EXPECT_LE(C->end(), Open.back()->end() + Slack)
            << C->Name << " at " << C->Ts << " overlaps " << Open.back()->Name << " on thread "
            << Tid;
      }
      Callers[shortName(C->Name)].insert(Open.empty() ? "" : shortName(Open.back()->Name));
      Open.push_back(C);
    }
  }
  return Callers;
}

/// The table's inclusive time of \p Name from the timeline: its outermost calls' durations (a
/// recursive method counted once); and its exclusive time: each call's duration less its direct
/// callees'.
std::pair<double, double> timesFromTimeline(const Timeline &T, llvm::StringRef Name) {
  double Inclusive = 0, Exclusive = 0;
  for (auto &[Tid, Calls] : byThread(T)) {
    std::vector<const Call *> Open;
    std::vector<double> Callees;
    auto Close = [&] {
      if (shortName(Open.back()->Name) == Name)
        Exclusive += Open.back()->Dur - Callees.back();
      Open.pop_back();
      Callees.pop_back();
    };
    for (const Call *C : Calls) {
      while (!Open.empty() && Open.back()->end() <= C->Ts + Slack)
        Close();
      bool Inside = llvm::any_of(Open, [&](const Call *O) { return shortName(O->Name) == Name; });
      if (shortName(C->Name) == Name && !Inside)
        Inclusive += C->Dur;
      if (!Callees.empty())
        Callees.back() += C->Dur;
      Open.push_back(C);
      Callees.push_back(0);
    }
    while (!Open.empty())
      Close();
  }
  return {Inclusive, Exclusive};
}

int64_t eventsOf(const Timeline &T, llvm::StringRef Name) {
  return llvm::count_if(T.Calls, [&](const Call &C) { return shortName(C.Name) == Name; });
}

// Every call of the program is on the timeline, once, on the thread that made it, nested as
// the program called; the table counts the same calls and its times are the timeline's.
TEST(TraceTimeline, HoldsEveryCallNestedAsTheProgramCalled) {
  Traced T = traceOffline("offline", "trace");
  CommandResult Plain = run("dotnet", {programDll()});
  EXPECT_EQ(T.Run.Out, Plain.Out);
  EXPECT_EQ(T.Events.Dropped, 0);
  EXPECT_EQ(T.Events.Recorded, int64_t(T.Events.Calls.size()));
  EXPECT_EQ(T.Events.Total, T.Events.Recorded);
  for (auto &[Name, Count] : expectedCalls()) {
    SCOPED_TRACE(Name);
    EXPECT_EQ(eventsOf(T.Events, Name), Count);
    EXPECT_EQ(T.Table[Name].Calls, Count);
  }
  EXPECT_EQ(T.Table.size(), expectedCalls().size());

  std::map<std::string, std::set<std::string>> Callers = expectNested(T.Events);
  EXPECT_EQ(Callers["Inner"], std::set<std::string>{"Middle"});
  EXPECT_EQ(Callers["Middle"], std::set<std::string>{"Outer"});
  EXPECT_EQ(Callers["Outer"], std::set<std::string>{"Work"});
  EXPECT_EQ(Callers["Fib"], (std::set<std::string>{"Fib", "Work"}));
  EXPECT_EQ(Callers["Work"], std::set<std::string>{""}); // each a thread of its own
  std::set<int64_t> WorkThreads, MainThreads;
  for (const Call &C : T.Events.Calls)
    (shortName(C.Name) == "Work" ? WorkThreads : MainThreads).insert(C.Tid);
  EXPECT_EQ(WorkThreads.size(), 2u);
  EXPECT_EQ(MainThreads.size(), 3u); // Main's, and the workers' own calls

  for (auto &[Name, R] : T.Table) {
    SCOPED_TRACE(Name);
    auto [Inclusive, Exclusive] = timesFromTimeline(T.Events, Name);
    // The table truncates to whole microseconds; the timeline rounds each call to 1 ns.
    double Rounding = 1 + 0.002 * double(R.Calls);
    EXPECT_NEAR(double(R.Inclusive), Inclusive, Rounding);
    EXPECT_NEAR(double(R.Exclusive), Exclusive, Rounding);
    EXPECT_LE(R.Exclusive, R.Inclusive);
  }
  // Nap sleeps 30 ms each time; Fib's recursion is counted once: its inclusive time is far less
  // than the sum of all its calls' durations.
  EXPECT_GE(T.Table["Nap"].Inclusive, 60000);
  double AllFib = 0;
  for (const Call &C : T.Events.Calls)
    if (shortName(C.Name) == "Fib")
      AllFib += C.Dur;
  EXPECT_LT(double(T.Table["Fib"].Inclusive) * 3, AllFib);
}

// With a threshold, only the calls at least that long are on the timeline, still nested; the
// table counts every call.
TEST(TraceTimeline, AThresholdKeepsOnlyTheLongCalls) {
  Traced T = traceOffline("threshold", "trace:threshold-us=25000");
  EXPECT_EQ(T.Events.Dropped, 0);
  EXPECT_EQ(T.Events.Recorded, int64_t(T.Events.Calls.size()));
  for (const Call &C : T.Events.Calls)
    EXPECT_GE(C.Dur, 25000) << C.Name;
  EXPECT_EQ(eventsOf(T.Events, "Nap"), 2); // 30 ms each
  EXPECT_EQ(eventsOf(T.Events, "Work"), 2);
  EXPECT_EQ(eventsOf(T.Events, "Main"), 1);
  EXPECT_EQ(eventsOf(T.Events, "Fib"), 0);
  expectNested(T.Events);
  for (auto &[Name, Count] : expectedCalls())
    EXPECT_EQ(T.Table[Name].Calls, Count) << Name;
}

// More calls than a small buffer holds: the program is never held up, the calls that find the
// buffer full are dropped and counted, and every call is either on the timeline or dropped.
TEST(TraceTimeline, AFullBufferDropsAndCountsCalls) {
  Traced T = traceOffline("dropped", "trace:buffer-mb=1,max-events=0", {"many", "1000000"});
  EXPECT_NE(T.Run.Out.find("sum 500000500000"), std::string::npos) << T.Run.Out;
  EXPECT_EQ(T.Table["Tiny"].Calls, 1000000);
  EXPECT_GT(T.Events.Dropped, 0);
  EXPECT_GT(T.Events.Recorded, 8192); // more than a chunk: the writer gave chunks back
  EXPECT_EQ(T.Events.Recorded, int64_t(T.Events.Calls.size()));
  EXPECT_EQ(T.Events.Recorded + T.Events.Dropped, T.Events.Total);
  int64_t Calls = 0;
  for (auto &[Name, R] : T.Table)
    Calls += R.Calls;
  EXPECT_EQ(T.Events.Total, Calls);
  expectNested(T.Events);
}

// Recursion deeper and longer than a small ring holds: the calls open when the ring filled that
// ended while it was full end on the timeline, those begun meanwhile are dropped and counted,
// and what is recorded still nests: Fib under Fib, Work or Main only.
TEST(TraceTimeline, AFullRingKeepsTheNestingWhole) {
  Traced T = traceOffline("dropped-deep", "trace:buffer-mb=1,max-events=0", {"deep", "24"});
  EXPECT_NE(T.Run.Out.find("fib 24 = 46368"), std::string::npos) << T.Run.Out;
  EXPECT_EQ(T.Table["Fib"].Calls, 2 * 1973 + 150049);
  EXPECT_EQ(T.Table["Main"].Calls, 1);
  EXPECT_GT(T.Events.Dropped, 0);
  EXPECT_EQ(T.Events.Recorded, int64_t(T.Events.Calls.size()));
  EXPECT_EQ(T.Events.Recorded + T.Events.Dropped, T.Events.Total);
  std::map<std::string, std::set<std::string>> Callers = expectNested(T.Events);
  for (const std::string &Caller : Callers["Fib"])
    EXPECT_TRUE(Caller == "Fib" || Caller == "Work" || Caller == "Main") << Caller;
  EXPECT_EQ(eventsOf(T.Events, "Main"), 1);
  EXPECT_LE(T.Table["Fib"].Inclusive, T.Table["Main"].Inclusive + T.Table["Work"].Inclusive);
}

// The timeline stops at its limit; the table goes on counting.
TEST(TraceTimeline, ALimitEndsTheTimelineNotTheTable) {
  Traced T = traceOffline("limit", "trace:max-events=1000", {"many", "100000"});
  EXPECT_EQ(T.Events.Recorded, 1000);
  EXPECT_EQ(int64_t(T.Events.Calls.size()), 1000);
  EXPECT_EQ(T.Table["Tiny"].Calls, 100000);
  EXPECT_EQ(T.Events.Total, 100000 + 4014);
  expectNested(T.Events);
}

// With instantiations asked for, a generic method's calls count per instantiation, named with
// their type arguments; without, under the generic definition.
TEST(TraceTimeline, InstantiationsAreToldApartWhenAsked) {
  Traced T = traceOffline("instantiations", "trace:instantiations=true", {"generic"});
  EXPECT_NE(T.Run.Out.find("1 a b 2 c"), std::string::npos) << T.Run.Out;
  std::map<std::string, int64_t> Got;
  for (auto &[Name, R] : T.Table)
    if (llvm::StringRef(Name).contains("Echo") || llvm::StringRef(Name).startswith("Box"))
      Got[Name] = R.Calls;
  std::map<std::string, int64_t> Want = {{"Echo<System.Int32>", 1},
                                         {"Echo<System.String>", 2},
                                         {"Box`1<System.Int32>::.ctor", 1},
                                         {"Box`1<System.Int32>::Get", 1},
                                         {"Box`1<System.String>::.ctor", 1},
                                         {"Box`1<System.String>::Get", 1}};
  EXPECT_EQ(Got, Want);
  EXPECT_EQ(eventsOf(T.Events, "Echo<System.String>"), 2);
  EXPECT_EQ(T.Table["Fib"].Calls, 2 * 1973); // non-generic code as before

  Traced Plain = traceOffline("no-instantiations", "trace", {"generic"});
  EXPECT_EQ(Plain.Table["Echo"].Calls, 3);
  EXPECT_EQ(Plain.Table["Box`1::Get"].Calls, 2);
}

// Options out of range are refused before anything is written, naming the pass and the value.
TEST(TraceTimeline, BadOptionsAreRefused) {
  std::string Dir = scratchDir("trace-timeline-bad-options");
  for (auto [Pass, Message] :
       {std::pair{"trace:mode=full", "trace: mode must be 'timeline' or 'summary', not 'full'"},
        std::pair{"trace:threshold-us=-1", "threshold-us must be a whole number from 0, not '-1'"},
        std::pair{"trace:buffer-mb=0", "buffer-mb must be a whole number from 1, not '0'"},
        std::pair{"trace:instantiations=yes", "instantiations must be 'true' or 'false'"}}) {
    CommandResult W =
        run(weftTool(), {"weave", programDll(), "-o", Dir + "/out.dll", "--pass", Pass});
    EXPECT_EQ(W.ExitCode, 1) << Pass;
    EXPECT_NE(W.Err.find(Message), std::string::npos) << W.Err;
    EXPECT_FALSE(llvm::sys::fs::exists(Dir + "/out.dll"));
  }
}

// Summary mode: the table, and no timeline. The calls are counted; the times are sampled each
// millisecond: Nap's 2 × 30 ms asleep are seen (within a few samples), in Work and in Nap.
TEST(TraceTimeline, SummaryModeWritesTheTableOnly) {
  Traced T = traceOffline("summary", "trace:mode=summary");
  EXPECT_FALSE(llvm::sys::fs::exists(T.Dir + "/trace.json"));
  for (auto &[Name, Count] : expectedCalls())
    EXPECT_EQ(T.Table[Name].Calls, Count) << Name;
  EXPECT_GE(T.Table["Nap"].Exclusive, 50000);
  EXPECT_GE(T.Table["Work"].Inclusive, T.Table["Nap"].Inclusive);
  EXPECT_LT(T.Table["Work"].Exclusive, T.Table["Work"].Inclusive / 2);
}

// A thread's last calls before it waits are on the timeline while it waits, not only once it
// calls again or the process ends: Main calls Tiny 200 times (400 records, fewer than come
// between two anchors), sleeps half a second, and finds all 200 in the file.
TEST(TraceTimeline, AnIdleThreadsLastCallsAreWrittenWhileItWaits) {
  Traced T = traceOffline("idle", "trace", {"idle", "200"});
  EXPECT_NE(T.Run.Out.find("idle 20100 seen 200"), std::string::npos) << T.Run.Out;
  EXPECT_EQ(T.Table["Tiny"].Calls, 200);
  EXPECT_EQ(eventsOf(T.Events, "Tiny"), 200);
  expectNested(T.Events);
}

// Threads that end, and threads that begin on the stacks they leave (summary mode finds a
// thread's counts from where its stack is), are counted exactly, in both modes, and in summary
// mode without the stack map too (WEFT_TRACE_MAP=0: the thread-static path alone).
TEST(TraceTimeline, ThreadsThatComeAndGoAreCountedExactly) {
  for (std::string Mode : {"summary", "summary-unmapped", "timeline"}) {
    bool Unmapped = Mode == "summary-unmapped";
    Traced T = traceOffline("waves-" + Mode, Unmapped ? "trace:mode=summary" : "trace:mode=" + Mode,
                            {"waves", "50", "20000"},
                            {Unmapped ? "WEFT_TRACE_MAP=0" : "WEFT_TRACE_MAP=1"});
    // Each of 200 threads adds 1 + 2 + ... + 20000.
    EXPECT_NE(T.Run.Out.find("waves 40002000000"), std::string::npos) << T.Run.Out;
    EXPECT_EQ(T.Table["Tiny"].Calls, 50 * 4 * 20000) << Mode;
    for (auto &[Name, Count] : expectedCalls())
      EXPECT_EQ(T.Table[Name].Calls, Count) << Mode << " " << Name;
  }
}

// `weft run` weaves the same code as the program compiles: the same calls on the timeline,
// nested the same way, instantiations told apart.
TEST(TraceTimeline, WeftRunRecordsTheSameCalls) {
  std::string Dir = programFolder("runtime", "");
  std::string Spec = Dir + "/weft.json";
  ASSERT_TRUE(writeFile(Spec, R"({"version": 1, "rules": [{"match": {"assembly": )"
                              R"("TimelineProgram"}, "passes": [{"name": "trace", "options": )"
                              R"({"instantiations": "true"}}]}]})"));
  std::string Profiled = Dir + "/profiler";
  ASSERT_FALSE(llvm::sys::fs::create_directories(Profiled));
  CommandResult R = run(weftTool(),
                        {"run", "--spec", Spec, "--log", Dir + "/weft.log", "--output-dir",
                         Profiled, "--", "dotnet", Dir + "/TimelineProgram.dll", "generic"},
                        {"WEFT_TRACE_FILE=" + Dir + "/trace.json"}, 300);
  Traced T = readTrace(Dir, R);
  EXPECT_EQ(T.Run.Out, run("dotnet", {programDll(), "generic"}).Out) << readFile(Dir + "/weft.log");
  EXPECT_EQ(T.Table["Echo<System.String>"].Calls, 2);
  EXPECT_EQ(T.Table["Box`1<System.Int32>::Get"].Calls, 1);
  EXPECT_EQ(T.Events.Dropped, 0);
  for (auto &[Name, Count] : expectedCalls()) {
    SCOPED_TRACE(Name);
    EXPECT_EQ(eventsOf(T.Events, Name), Count);
    EXPECT_EQ(T.Table[Name].Calls, Count);
  }
  std::map<std::string, std::set<std::string>> Callers = expectNested(T.Events);
  EXPECT_EQ(Callers["Inner"], std::set<std::string>{"Middle"});
  EXPECT_EQ(Callers["Fib"], (std::set<std::string>{"Fib", "Work"}));

  // The same calls on the profiler's timeline (beside what else it records), on the same
  // threads, at the same times relative to each other.
  std::string ProfilerTimeline;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Profiled, EC), End; It != End && !EC; It.increment(EC))
    if (llvm::sys::path::filename(It->path()).startswith("weft-timeline-"))
      ProfilerTimeline = It->path();
  ASSERT_FALSE(ProfilerTimeline.empty()) << readFile(Dir + "/weft.log");
  Timeline P;
  llvm::SmallVector<llvm::StringRef, 256> Lines;
  std::string Text = readFile(ProfilerTimeline);
  llvm::StringRef(Text).split(Lines, '\n', -1, false);
  for (llvm::StringRef L : Lines) {
    if (!L.startswith("{\"ph\":\"X\",\"cat\":\"trace\""))
      continue;
    L.consume_back(",");
    llvm::Expected<llvm::json::Value> V = llvm::json::parse(L);
    ASSERT_TRUE(bool(V)) << L.str();
    const llvm::json::Object &O = *V->getAsObject();
    P.Calls.push_back({O.getString("name").getValueOr("").str(), O.getInteger("tid").getValueOr(-1),
                       O.getNumber("ts").getValueOr(-1), O.getNumber("dur").getValueOr(-1)});
  }
  EXPECT_EQ(P.Calls.size(), T.Events.Calls.size());
  std::set<int64_t> Threads, ProfilerThreads;
  for (const Call &C : T.Events.Calls)
    Threads.insert(C.Tid);
  for (const Call &C : P.Calls)
    ProfilerThreads.insert(C.Tid);
  EXPECT_EQ(ProfilerThreads, Threads);
  for (auto &[Name, Count] : expectedCalls())
    EXPECT_EQ(eventsOf(P, Name), Count) << Name;
  expectNested(P);
}

// `weft run --pass` instruments the program's own assemblies, and never the trace pass's runtime,
// which the woven code loads from its own bytes (woven, it would trace its own calls without
// end): in both modes the program runs as it does alone and its calls are counted.
TEST(TraceTimeline, WeftRunLeavesTheRuntimeAlone) {
  for (llvm::StringRef Pass : {"trace", "trace:mode=summary"}) {
    SCOPED_TRACE(Pass.str());
    std::string Dir = programFolder(Pass == "trace" ? "run-pass" : "run-pass-summary", "");
    CommandResult R = run(weftTool(),
                          {"run", "--pass", Pass.str(), "--log", Dir + "/weft.log", "--output-dir",
                           Dir, "--", "dotnet", Dir + "/TimelineProgram.dll"},
                          {"WEFT_TRACE_FILE=" + Dir + "/trace.json"}, 300);
    Traced T = readTrace(Dir, R);
    EXPECT_EQ(T.Run.Out, run("dotnet", {programDll()}).Out) << readFile(Dir + "/weft.log");
    for (auto &[Name, Count] : expectedCalls())
      EXPECT_EQ(T.Table[Name].Calls, Count) << Name;
    EXPECT_EQ(readFile(Dir + "/weft.log").find("Weft.Trace"), std::string::npos);
  }
}

} // namespace
