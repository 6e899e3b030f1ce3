//===- tests/profiler/SoakTest.cpp - The profiler under load and faults ----===//
//
// corpus/WebApi serves requests under wrk while weft attaches to it and detaches again and again
// (with tracepoints and the GC session), its spec is edited (broken edits, a FIFO in its place,
// session-following tracepoints among them) and dotnet-trace sessions for its GC events and the
// Weft provider start and stop. No request may fail, the server may not crash, and what the
// profiler wrote must be well formed. Prints the requests served and the server's resident memory
// before and after.
//
// In CI a slice: at least 20 s, 5 attach/detach cycles, 15 spec edits. With WEFT_FULL=1: at
// least 60 s, 20 cycles, 50 edits.
//
//===----------------------------------------------------------------------===//
#include "tests/profiler/Ticker.h"
#include "tests/support/Env.h"
#include "tests/support/Loopback.h"
#include "tests/support/OtherUser.h"
#include "tests/support/Weave.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"

#include <chrono>
#include <csignal>
#include <mutex>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace weft;
using namespace weft::test;

namespace {

struct Plan {
  unsigned Seconds, Cycles, Edits;
};

Plan plan() {
  if (llvm::sys::Process::GetEnv("WEFT_FULL"))
    return {60, 20, 50};
  return {20, 5, 15};
}

/// Whether GET \p Path on loopback port \p Port answers 200 with \p Body.
bool answers(int Port, llvm::StringRef Path, llvm::StringRef Body) {
  std::optional<std::string> Got = httpGet(Port, Path.str());
  return Got && llvm::StringRef(*Got).endswith(Body);
}

/// The resident memory of process \p Pid, in KiB.
uint64_t residentKiB(long Pid) {
  auto File = llvm::MemoryBuffer::getFileAsStream("/proc/" + std::to_string(Pid) + "/status");
  std::string Status = File ? (*File)->getBuffer().str() : "";
  size_t At = Status.find("VmRSS:");
  if (At == std::string::npos)
    return 0;
  return std::strtoull(Status.c_str() + At + 6, nullptr, 10);
}

/// The spec edits, in turn: tracepoints of several shapes, and edits that must change nothing.
std::string specVariant(unsigned I) {
  auto With = [](llvm::StringRef Tracepoints) {
    return "{\"version\": 1, \"rules\": [], \"tracepoints\": [" + Tracepoints.str() + "]}";
  };
  std::string Search = "{\"name\": \"search\", \"match\": {\"assembly\": \"WebApi\", \"type\": "
                       "\"Catalog\", \"method\": \"Search\"}, \"depth\": 2";
  std::string Matches = "{\"name\": \"matches\", \"match\": {\"assembly\": \"WebApi\", \"type\": "
                        "\"Catalog\", \"method\": \"Matches\"}";
  switch (I % 6) {
  case 0: return With(Search + "}");
  case 1: return With(Search + ", \"enabled\": false}");
  case 2: return With(Search + "}, " + Matches + ", \"enabled\": false}"); // 2,000 calls a request
  case 3: return "{\"version\": 1, \"tracepoints\": [ {"; // broken: logged, nothing changes
  case 4: return With(Search + ", \"enabled\": \"session\"}");
  default: return With("");
  }
}

/// Replaces \p Spec at once with \p Text, or with a FIFO when \p Fifo.
void editSpec(const std::string &Spec, const std::string &Text, bool Fifo) {
  std::string Temp = Spec + ".new";
  ::unlink(Temp.c_str());
  if (Fifo)
    ASSERT_EQ(::mkfifo(Temp.c_str(), 0600), 0);
  else
    ASSERT_TRUE(writeFile(Temp, Text));
  ASSERT_EQ(::rename(Temp.c_str(), Spec.c_str()), 0);
}

/// A number after \p Label in wrk's report ("Non-2xx or 3xx responses: 12"), or 0.
uint64_t wrkFigure(llvm::StringRef Report, llvm::StringRef Label) {
  size_t At = Report.find(Label);
  if (At == llvm::StringRef::npos)
    return 0;
  uint64_t N = 0;
  Report.substr(At + Label.size()).ltrim().consumeInteger(10, N);
  return N;
}

TEST(Soak, AServerUnderLoadKeepsServingWhileWeftComesAndGoes) {
  if (!llvm::sys::findProgramByName("wrk"))
    GTEST_FAIL() << "wrk is not installed (./dev setup installs it)";
  Plan P = plan();
  TempFolderOfItsOwn Temp("soak"); // its sockets and control folder, not /tmp's
  std::string Dir = scratchDir("soak");
  std::string App = binaryDir() + "/webapi/bin/WebApi/release/WebApi.dll";
  ASSERT_TRUE(llvm::sys::fs::exists(App)) << App;
  std::string Spec = Dir + "/weft.json", Log = Dir + "/weft.log";
  editSpec(Spec, specVariant(0), false);
  int Port = freePort();
  std::string Url = "http://127.0.0.1:" + std::to_string(Port);

  // The server, started without any profiler variables.
  std::vector<llvm::StringRef> Env;
  for (char **E = environ; *E; ++E)
    if (!llvm::StringRef(*E).startswith("CORECLR_") && !llvm::StringRef(*E).startswith("DOTNET_"))
      Env.push_back(*E);
  std::string Dotnet = *llvm::sys::findProgramByName("dotnet");
  std::vector<llvm::StringRef> Args{"dotnet", App, "--urls", Url};
  std::string ServerOut = Dir + "/server.out", ServerErr = Dir + "/server.err";
  llvm::Optional<llvm::StringRef> Redirects[] = {llvm::StringRef(""), llvm::StringRef(ServerOut),
                                                 llvm::StringRef(ServerErr)};
  llvm::sys::ProcessInfo Server =
      llvm::sys::ExecuteNoWait(Dotnet, Args, llvm::ArrayRef(Env), Redirects);
  ASSERT_GT(Server.Pid, 0);
  auto Stop = [&] {
    if (Server.Pid) {
      ::kill(Server.Pid, SIGTERM);
      Server = llvm::sys::Wait(Server, 30, true);
      Server.Pid = 0;
    }
  };
  ASSERT_TRUE(waitFor(60, [&] { return answers(Port, "/health", "ok"); })) << readFile(ServerErr);
  uint64_t Before = residentKiB(Server.Pid);

  // The load, for the whole soak: stopped (SIGINT: it reports) once every fault was made and
  // the planned time is over.
  std::string WrkOut = Dir + "/wrk.txt", WrkErr = WrkOut + ".err";
  std::vector<llvm::StringRef> WrkArgs;
  std::string Duration = std::to_string(P.Seconds + 600) + "s", Target = Url + "/search?q=oak";
  std::vector<std::string> WrkWords{"wrk",       "-t2", "-c16", "-d" + Duration,
                                    "--timeout", "10s", Target};
  for (const std::string &W : WrkWords)
    WrkArgs.push_back(W);
  llvm::Optional<llvm::StringRef> WrkRedirects[] = {llvm::StringRef(""), llvm::StringRef(WrkOut),
                                                    llvm::StringRef(WrkErr)};
  llvm::sys::ProcessInfo Wrk = llvm::sys::ExecuteNoWait(*llvm::sys::findProgramByName("wrk"),
                                                        WrkArgs, llvm::None, WrkRedirects);
  auto Start = std::chrono::steady_clock::now();
  auto Elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  };

  // The faults, spread over the load: each cycle attaches, edits the spec, detaches; every
  // other cycle a dotnet-trace session collects GC events and the Weft provider meanwhile.
  std::string Pid = std::to_string(Server.Pid);
  std::vector<std::string> Attach{"attach", "--pid",        Pid, "--spec", Spec,           "--log",
                                  Log,      "--output-dir", Dir, "--gc",   "informational"};
  double Slot = (P.Seconds - 2.0) / P.Cycles;
  unsigned Edits = 0, Attaches = 0, Detaches = 0, Sessions = 0;
  std::vector<std::pair<std::string, CommandResult>> Traces; // each session's file and its run
  std::mutex TracesLock;
  for (unsigned C = 0; C < P.Cycles; ++C) {
    CommandResult A = run(weftTool(), Attach, {}, 60);
    ASSERT_EQ(A.ExitCode, 0) << A.Out << A.Err << readFile(Log);
    ++Attaches;
    std::thread Session;
    if (C % 2 == 1) {
      ++Sessions;
      Session = std::thread([&, C] {
        std::string File = Dir + "/session-" + std::to_string(C) + ".nettrace";
        CommandResult T = run(binaryDir() + "/tools/dotnet-trace",
                              {"collect", "-p", Pid, "--providers",
                               "Microsoft-Windows-DotNETRuntime:0x1:4,Weft:0x3:4", "--duration",
                               "00:00:00:02", "-o", File},
                              {}, 60);
        std::lock_guard<std::mutex> G(TracesLock);
        Traces.emplace_back(File, std::move(T));
      });
    }
    unsigned Here = (P.Edits * (C + 1)) / P.Cycles - (P.Edits * C) / P.Cycles;
    for (unsigned E = 0; E < Here; ++E, ++Edits) {
      std::this_thread::sleep_for(std::chrono::duration<double>(Slot / (Here + 2)));
      // Every seventh edit puts a FIFO where the spec was; the next puts a good spec back.
      editSpec(Spec, specVariant(Edits), Edits % 7 == 5);
    }
    // The cycle's last edit left a FIFO or a broken spec: a good one for the next attach (which
    // checks the spec first, and would rightly refuse those).
    if (Here && ((Edits - 1) % 7 == 5 || (Edits - 1) % 6 == 3))
      editSpec(Spec, specVariant(0), false);
    if (Session.joinable())
      Session.join();
    CommandResult D = run(weftTool(), {"detach", "--pid", Pid}, {}, 60);
    ASSERT_EQ(D.ExitCode, 0) << D.Out << D.Err << readFile(Log);
    ++Detaches;
    while (Elapsed() < Slot * (C + 1))
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  while (Elapsed() < P.Seconds)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  double Loaded = Elapsed();
  ::kill(Wrk.Pid, SIGINT);
  Wrk = llvm::sys::Wait(Wrk, 60, true);
  uint64_t After = residentKiB(Server.Pid);
  bool Alive = ::kill(Server.Pid, 0) == 0;
  auto Stopping = std::chrono::steady_clock::now();
  Stop();
  double StopSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Stopping).count();
  std::string Report = readFile(WrkOut);
  EXPECT_EQ(Wrk.ReturnCode, 0) << Report << readFile(WrkOut + ".err");

  // "  123456 requests in 20.00s, 1.2GB read"
  uint64_t Requests = 0, Failed = wrkFigure(Report, "Non-2xx or 3xx responses:");
  if (size_t In = Report.find(" requests in "); In != std::string::npos)
    Requests = std::strtoull(Report.c_str() + Report.rfind('\n', In) + 1, nullptr, 10);
  std::cout << "soak: " << unsigned(Loaded) << " s of wrk (2 threads, 16 connections), " << Attaches
            << " attaches, " << Detaches << " detaches, " << Edits << " spec edits, " << Sessions
            << " dotnet-trace sessions; " << Requests << " requests served, " << Failed
            << " failed; server resident memory " << Before / 1024 << " MiB before, "
            << After / 1024 << " MiB after; stopped in " << StopSeconds << " s\n";
  EXPECT_TRUE(Alive) << "the server died: " << readFile(ServerErr);
  EXPECT_GT(Requests, 0u) << Report;
  EXPECT_EQ(Failed, 0u) << Report;
  EXPECT_EQ(Report.find("Socket errors"), std::string::npos) << Report;
  EXPECT_EQ(Server.ReturnCode, 0) << readFile(ServerErr);
  EXPECT_EQ(readFile(ServerErr), "");

  // What the profiler wrote is well formed: the log says what each edit did; the timelines are
  // JSON.
  std::string Text = readFile(Log);
  EXPECT_EQ(countOf(Text, "detach: done"), size_t(P.Cycles)) << Text;
  EXPECT_EQ(countOf(Text, "attached again"), size_t(P.Cycles - 1)) << Text;
  EXPECT_GE(countOf(Text, "spec edited: '" + Spec + "': is a FIFO"), 1u) << Text;
  EXPECT_EQ(Text.find("an unexpected error"), std::string::npos) << Text;
  size_t Timelines = 0;
  for (const std::string &F : filesUnder(Dir, {".json"})) {
    if (llvm::sys::path::filename(F).startswith("weft-timeline-")) {
      ++Timelines;
      llvm::Expected<llvm::json::Value> V = llvm::json::parse(readFile(F));
      EXPECT_TRUE(bool(V)) << F << ": " << (V ? "" : llvm::toString(V.takeError()));
    }
  }
  EXPECT_GE(Timelines, 1u);

  // Each dotnet-trace session ran to its end and wrote a trace that reads, with the runtime's GC
  // events in it (the server allocates under load: a two-second session sees collections).
  ASSERT_EQ(Traces.size(), size_t(Sessions));
  size_t GcEvents = 0;
  for (const auto &[File, T] : Traces) {
    EXPECT_EQ(T.ExitCode, 0) << File << ": " << T.Out << T.Err;
    CommandResult Dump = run("dotnet", {helperDll("NettraceDump"), File}, {}, 120);
    ASSERT_EQ(Dump.ExitCode, 0) << File << ": " << Dump.Err;
    size_t Here = countOf(Dump.Out, "Microsoft-Windows-DotNETRuntime/GC");
    EXPECT_GE(Here, 1u) << File << ": no GC event in\n" << Dump.Out.substr(0, 2000);
    GcEvents += Here;
  }
  std::cout << "dotnet-trace sessions: " << Traces.size() << ", " << GcEvents << " GC events\n";
}

} // namespace
