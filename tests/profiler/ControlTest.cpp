//===- tests/profiler/ControlTest.cpp - Only the user steers the profiler -===//
//
// An attached profiler takes `weft detach` and `weft attach` requests only from a folder no one
// else may enter; the attach client speaks only to a channel the process itself serves, gives up
// when it does not answer, and sends no value that would add a setting; the spec watch reads only
// a regular file of the user's own, whole, and a refused edit changes nothing. The attacks are
// made by a second, unprivileged user (tests/support/OtherUser.h) where the tests run as root.
//
//===----------------------------------------------------------------------===//
#include "runtime-profiler/Identity.h"
#include "tests/profiler/Ticker.h"
#include "tests/support/Env.h"
#include "tests/support/OtherUser.h"
#include "tests/support/Weave.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>
#include <cstring>
#include <gtest/gtest.h>
#include <set>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>

using namespace weft;
using namespace weft::test;

namespace {

std::string probeSpec() {
  return "{\"version\": 1, \"rules\": [{\"match\": {\"assembly\": \"Ticker\", \"method\": "
         "\"Tick\"}, \"passes\": [{\"name\": \"entry-exit\", \"options\": {\"probe-assembly\": "
         "\"Probes.dll\", \"probe-type\": \"Weft.Probes.Recorder\"}}]}]}";
}

/// The ticks whose Tick call the probes saw (the probe log is written at the program's exit).
std::set<int> entered(const std::string &ProbeLog) {
  std::set<int> Ticks;
  llvm::SmallVector<llvm::StringRef, 256> Lines;
  std::string Text = readFile(ProbeLog);
  llvm::StringRef(Text).split(Lines, '\n', -1, false);
  for (llvm::StringRef L : Lines) {
    int N = 0;
    if (L.consume_front("enter Program::Tick this=null (") && !L.consumeInteger(10, N))
      Ticks.insert(N);
  }
  return Ticks;
}

/// How many ticks of [\p From, \p To] \p Ticks holds.
size_t within(const std::set<int> &Ticks, size_t From, size_t To) {
  size_t N = 0;
  for (size_t I = From; I <= To; ++I)
    N += Ticks.count(int(I));
  return N;
}

/// weft, where the other user may run it.
std::string weftFor(const SharedFolder &F) {
  std::string Copy = F / "weft";
  if (!llvm::sys::fs::exists(Copy)) {
    EXPECT_FALSE(llvm::sys::fs::copy_file(weftTool(), Copy));
    ::chmod(Copy.c_str(), 0755);
  }
  return Copy;
}

// Another user can neither squat the control folder nor drop a request into it, nor detach
// someone else's process with `weft detach`; the user's own detach and re-attach work.
TEST(ProfilerControl, OnlyTheUserDetachesAndAttachesAgain) {
  WEFT_NEEDS_OTHER_USER(Other);
  TempFolderOfItsOwn Temp("control");
  std::string ProbeLog = Temp / "probes.log";
  Ticker T("control-detach", {}, {"WEFT_PROBE_LOG=" + ProbeLog});
  std::string Spec = T.Dir + "/weft.json", Log = T.Dir + "/weft.log";
  ASSERT_TRUE(writeFile(Spec, probeSpec()));
  ASSERT_TRUE(T.waitTicks(5)) << readFile(T.Err);
  std::string Pid = std::to_string(T.PI.Pid);
  std::vector<std::string> Attach{"attach", "--pid", Pid, "--spec", Spec, "--log", Log};
  std::string Folder = prof::controlFolder(::geteuid());
  ASSERT_EQ(llvm::StringRef(Folder).rsplit('/').first, Temp.path());

  // The other user made the folder first: weft will not use it.
  ASSERT_EQ(shellAs(*Other, "mkdir -m 0777 '" + Folder + "'").ExitCode, 0);
  CommandResult A = run(weftTool(), Attach);
  EXPECT_EQ(A.ExitCode, 1);
  EXPECT_NE(A.Err.find("'" + Folder + "': is owned by uid " + std::to_string(Other->Uid)),
            std::string::npos)
      << A.Err;
  removeTree(Folder);

  A = run(weftTool(), Attach);
  ASSERT_EQ(A.ExitCode, 0) << A.Err;
  size_t Attached = T.ticks();
  struct stat St;
  ASSERT_EQ(::lstat(Folder.c_str(), &St), 0);
  EXPECT_EQ(St.st_mode & 0777, 0700u);

  // Requests where the profiler once looked, or in its folder, from the other user: nothing.
  CommandResult Planted =
      shellAs(*Other, "touch '" + Temp.path() + "/weft-detach-" + Pid + "'; touch '" +
                          prof::detachRequestPath(Folder, T.PI.Pid) + "'");
  EXPECT_NE(Planted.ExitCode, 0); // the folder refuses the second
  EXPECT_NE(Planted.Err.find("Permission denied"), std::string::npos) << Planted.Err;
  CommandResult D = runAs(*Other, weftFor(Temp), {"detach", "--pid", Pid, "--timeout", "1"});
  EXPECT_EQ(D.ExitCode, 1);
  EXPECT_NE(D.Err.find("belongs to another user"), std::string::npos) << D.Err;

  // A request that is not a regular file is refused, and said so.
  std::string Request = prof::detachRequestPath(Folder, T.PI.Pid);
  ASSERT_EQ(::symlink(Spec.c_str(), Request.c_str()), 0);
  ASSERT_TRUE(waitFor(10, [&] { return llvm::sys::fs::exists(Request + ".reply"); }));
  EXPECT_NE(readFile(Log).find("control: a request refused: '" + Request + "': is a symbolic link"),
            std::string::npos)
      << readFile(Log);
  ::unlink((Request + ".reply").c_str());
  ASSERT_TRUE(T.waitTicks(10));

  // The user's own detach works; the same attach again records again; other settings are
  // refused.
  D = run(weftTool(), {"detach", "--pid", Pid});
  ASSERT_EQ(D.ExitCode, 0) << D.Err;
  size_t Detached = T.ticks();
  ASSERT_TRUE(T.waitTicks(20));
  A = run(weftTool(), Attach);
  ASSERT_EQ(A.ExitCode, 0) << A.Err;
  EXPECT_EQ(A.Out, "weft: attached to process " + Pid + " again\n");
  size_t Again = T.ticks();
  ASSERT_TRUE(T.waitTicks(20));
  D = run(weftTool(), {"detach", "--pid", Pid});
  ASSERT_EQ(D.ExitCode, 0) << D.Err;
  size_t DetachedAgain = T.ticks();
  A = run(weftTool(), {"attach", "--pid", Pid, "--pass", "single-ret", "--log", Log});
  EXPECT_EQ(A.ExitCode, 1);
  EXPECT_NE(A.Err.find("refused: the profiler was attached with other settings"), std::string::npos)
      << A.Err;
  ASSERT_TRUE(T.waitTicks(20));
  size_t Last = T.ticks();
  EXPECT_EQ(T.stop(), 0) << readFile(T.Err);
  T.expectUnchangedOutput();

  // Recorded from each attach to its detach, never between (give or take the ticks in flight
  // while a request is taken and the method compiled again: four either side).
  std::set<int> Seen = entered(ProbeLog);
  auto All = [&](size_t From, size_t To) {
    return within(Seen, From + 4, To - 4) == To - From - 7;
  };
  auto None = [&](size_t From, size_t To) { return within(Seen, From + 4, To - 4) == 0; };
  EXPECT_TRUE(All(Attached, Detached)) << Attached << ".." << Detached << "\n" << readFile(Log);
  EXPECT_TRUE(None(Detached, Again)) << Detached << ".." << Again;
  EXPECT_TRUE(All(Again, DetachedAgain)) << Again << ".." << DetachedAgain;
  EXPECT_TRUE(None(DetachedAgain, Last)) << DetachedAgain << ".." << Last;
  std::string Text = readFile(Log);
  EXPECT_EQ(countOf(Text, "detach: done"), 2u) << Text;
  EXPECT_NE(Text.find("attached again"), std::string::npos) << Text;
}

/// A listening socket at \p Path, served by this process.
struct Listener {
  int Fd = -1;
  explicit Listener(const std::string &Path) {
    Fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un Addr{};
    Addr.sun_family = AF_UNIX;
    std::memcpy(Addr.sun_path, Path.c_str(), std::min(Path.size() + 1, sizeof Addr.sun_path));
    EXPECT_EQ(::bind(Fd, reinterpret_cast<sockaddr *>(&Addr), sizeof Addr), 0) << Path;
    EXPECT_EQ(::listen(Fd, 4), 0);
  }
  ~Listener() { ::close(Fd); }
};

std::string emptySpec(const std::string &Dir) {
  std::string Spec = Dir + "/weft.json";
  writeFile(Spec, "{\"version\": 1, \"rules\": []}");
  return Spec;
}

// The attach client talks only to the process's own channel: not a file in its place, not a
// socket of another user's, not one another process serves; it gives up when the process does
// not answer; and it never sends a value with a line break.
TEST(ProfilerControl, TheAttachClientTrustsOnlyTheProcessItself) {
  TempFolderOfItsOwn Temp("attach-client");
  std::string Spec = emptySpec(Temp.path());
  std::string Me = std::to_string(::getpid());
  auto Attach = [&](const std::string &Pid, std::vector<std::string> More = {}) {
    std::vector<std::string> Args{"attach", "--pid", Pid, "--spec", Spec, "--timeout", "1"};
    Args.insert(Args.end(), More.begin(), More.end());
    return run(weftTool(), Args);
  };
  std::string Socket = Temp / ("dotnet-diagnostic-" + Me + "-1-socket");

  // A line break in a value: refused before anything is sent.
  CommandResult A = Attach(Me, {"--log", Temp / "a\nWEFT_SPEC=/elsewhere"});
  EXPECT_EQ(A.ExitCode, 1);
  EXPECT_NE(A.Err.find("the value of WEFT_LOG holds a line break"), std::string::npos) << A.Err;

  // A regular file where the socket should be.
  ASSERT_TRUE(writeFile(Socket, ""));
  A = Attach(Me);
  EXPECT_EQ(A.ExitCode, 1);
  EXPECT_NE(A.Err.find("is not a socket"), std::string::npos) << A.Err;
  ::unlink(Socket.c_str());

  // This process's own socket, which never answers: the client gives up.
  {
    Listener L(Socket);
    auto Start = std::chrono::steady_clock::now();
    A = Attach(Me);
    double Took = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
    EXPECT_EQ(A.ExitCode, 1);
    EXPECT_NE(A.Err.find("did not answer the attach request in 6 s"), std::string::npos) << A.Err;
    EXPECT_LT(Took, 20.0);
  }
  ::unlink(Socket.c_str());

  // A socket for a .NET process that another process serves (here, this one for a child).
  llvm::sys::ProcessInfo Sleeper;
  {
    llvm::ErrorOr<std::string> Sleep = llvm::sys::findProgramByName("sleep");
    ASSERT_TRUE(bool(Sleep));
    std::vector<llvm::StringRef> Args{"sleep", "30"};
    Sleeper = llvm::sys::ExecuteNoWait(*Sleep, Args, llvm::None);
  }
  std::string ChildSocket =
      Temp / ("dotnet-diagnostic-" + std::to_string(Sleeper.Pid) + "-1-socket");
  {
    Listener L(ChildSocket);
    A = Attach(std::to_string(Sleeper.Pid));
    EXPECT_EQ(A.ExitCode, 1);
    EXPECT_NE(A.Err.find("is served by process " + Me + " (uid "), std::string::npos) << A.Err;
  }
  ::unlink(ChildSocket.c_str());
  ::kill(Sleeper.Pid, SIGKILL);
  llvm::sys::Wait(Sleeper, 10, true);

  // Another user's socket in the shared folder.
  std::string WhyNot;
  if (std::optional<OtherUser> Other = otherUser(&WhyNot)) {
    CommandResult S =
        shellAs(*Other, "python3 -c \"import socket,sys; s=socket.socket(socket.AF_UNIX); "
                        "s.bind(sys.argv[1]); s.listen(1)\" '" +
                            Socket + "'");
    ASSERT_EQ(S.ExitCode, 0) << S.Err;
    A = Attach(Me);
    EXPECT_EQ(A.ExitCode, 1);
    EXPECT_NE(A.Err.find("is owned by uid " + std::to_string(Other->Uid)), std::string::npos)
        << A.Err;
  } else {
    GTEST_SKIP() << "the rest passed; the socket of another user not tried: " << WhyNot;
  }
}

/// A spec whose one tracepoint records Describe.
std::string tracepointSpec(llvm::StringRef Padding = "") {
  return "{\"version\": 1, \"rules\": [], \"tracepoints\": [{\"name\": \"describe\", \"match\": "
         "{\"assembly\": \"Ticker\", \"method\": \"Describe\"}}]" +
         Padding.str() + "}";
}

/// Puts \p Make's file in place of \p Spec at once (made beside it, renamed over it).
template <typename Fn> void replaceSpec(const std::string &Spec, Fn &&Make) {
  std::string Temp = Spec + ".new";
  ::unlink(Temp.c_str());
  Make(Temp);
  ASSERT_EQ(::rename(Temp.c_str(), Spec.c_str()), 0) << std::strerror(errno);
}

// The spec watch reads only a regular file of the user's own, not writable by others, of at most
// 1 MiB: a link (to a spec, or to /dev/zero), a FIFO (which would block the profiler's thread), a
// file anyone may write, one another user owns, one too large are refused, said once each, and
// the tracepoints in force stay; the next good edit applies.
TEST(ProfilerControl, TheSpecWatchTakesOnlyTheUsersOwnRegularFile) {
  TempFolderOfItsOwn Temp("control-spec");
  Ticker T("control-spec", {}, {});
  std::string Spec = T.Dir + "/weft.json", Good = T.Dir + "/good.json", Log = T.Dir + "/weft.log";
  ASSERT_TRUE(writeFile(Spec, "{\"version\": 1, \"rules\": [], \"tracepoints\": []}"));
  ASSERT_TRUE(writeFile(Good, tracepointSpec()));
  ASSERT_TRUE(T.waitTicks(5)) << readFile(T.Err);
  CommandResult A = run(weftTool(), {"attach", "--pid", std::to_string(T.PI.Pid), "--spec", Spec,
                                     "--log", Log, "--output-dir", T.Dir});
  ASSERT_EQ(A.ExitCode, 0) << A.Err;
  auto LogHas = [&](const std::string &What, size_t Times = 1) {
    return waitFor(15, [&] { return countOf(readFile(Log), What) >= Times; });
  };
  std::string Refused = "spec edited: '" + Spec + "': ";

  replaceSpec(Spec,
              [&](const std::string &P) { ASSERT_EQ(::symlink(Good.c_str(), P.c_str()), 0); });
  ASSERT_TRUE(LogHas(Refused + "is a symbolic link; the tracepoints in force stay"))
      << readFile(Log);
  replaceSpec(Spec, [&](const std::string &P) { ASSERT_EQ(::symlink("/dev/zero", P.c_str()), 0); });
  T.waitTicks(3);
  replaceSpec(Spec, [&](const std::string &P) { ASSERT_EQ(::mkfifo(P.c_str(), 0600), 0); });
  ASSERT_TRUE(LogHas(Refused + "is a FIFO; the tracepoints in force stay")) << readFile(Log);
  replaceSpec(Spec, [&](const std::string &P) {
    ASSERT_TRUE(writeFile(P, tracepointSpec()));
    ::chmod(P.c_str(), 0666);
  });
  ASSERT_TRUE(LogHas(Refused + "may be written by other users")) << readFile(Log);
  replaceSpec(Spec, [&](const std::string &P) {
    ASSERT_TRUE(writeFile(P, tracepointSpec(std::string(1100000, ' '))));
  });
  ASSERT_TRUE(LogHas(Refused + "is 1100")) << readFile(Log);
  std::string WhyNot;
  if (std::optional<OtherUser> Other = otherUser(&WhyNot)) {
    replaceSpec(Spec, [&](const std::string &P) {
      ASSERT_TRUE(writeFile(P, tracepointSpec()));
      ASSERT_EQ(::chown(P.c_str(), Other->Uid, Other->Gid), 0);
    });
    ASSERT_TRUE(LogHas(Refused + "is owned by another user (uid " + std::to_string(Other->Uid)))
        << readFile(Log);
  }
  // None of them changed anything; the watch still runs (the FIFO did not block it).
  EXPECT_EQ(readFile(Log).find("tracepoints now"), std::string::npos) << readFile(Log);
  std::string Timeline = T.Dir + "/weft-timeline-" + std::to_string(T.PI.Pid) + ".json";
  EXPECT_EQ(countOf(readFile(Timeline), "Program::Describe"), 0u);
  // A good edit of over 16 KiB (once mapped, now read) applies.
  replaceSpec(Spec, [&](const std::string &P) {
    ASSERT_TRUE(writeFile(P, tracepointSpec(std::string(100000, ' '))));
  });
  ASSERT_TRUE(LogHas("spec edited: tracepoints now describe")) << readFile(Log);
  // Each refusal is said once, not at every look.
  EXPECT_EQ(countOf(readFile(Log), "is a symbolic link; the tracepoints"), 1u) << readFile(Log);
  CommandResult D = run(weftTool(), {"detach", "--pid", std::to_string(T.PI.Pid)});
  EXPECT_EQ(D.ExitCode, 0) << D.Err;
  EXPECT_EQ(T.stop(), 0) << readFile(T.Err);
  T.expectUnchangedOutput();
  if (!WhyNot.empty())
    GTEST_SKIP() << "the rest passed; a spec of another user not tried: " << WhyNot;
}

// A spec that is a FIFO when the program starts (a host that sets the variables itself): the
// profiler declines at once, and the program runs as it does.
TEST(ProfilerControl, AFifoAsTheSpecAtTheStartIsDeclinedWithoutWaiting) {
  std::string Dir = scratchDir("control-fifo-spec");
  std::string Fifo = Dir + "/weft.json", Log = Dir + "/weft.log";
  ASSERT_EQ(::mkfifo(Fifo.c_str(), 0600), 0);
  CommandResult R =
      run("dotnet", {corpusDll("Closures")},
          {"CORECLR_ENABLE_PROFILING=1", std::string("CORECLR_PROFILER=") + prof::ProfilerClsid,
           "CORECLR_PROFILER_PATH=" + llvm::sys::path::parent_path(weftTool()).str() + "/" +
               prof::ProfilerLibrary,
           "WEFT_SPEC=" + Fifo, "WEFT_LOG=" + Log},
          60);
  EXPECT_EQ(R.ExitCode, 0) << R.Err;
  EXPECT_EQ(R.Out, expectedOutput("Closures"));
  EXPECT_NE(readFile(Log).find("declined on CoreCLR"), std::string::npos) << readFile(Log);
  EXPECT_NE(readFile(Log).find("is a FIFO; nothing is instrumented"), std::string::npos)
      << readFile(Log);
}

} // namespace
