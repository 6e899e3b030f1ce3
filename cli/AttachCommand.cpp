//===- cli/AttachCommand.cpp - weft attach, weft detach -------------------===//
//
// `attach` loads the profiler into a .NET process that is already running, through the runtime's
// diagnostics channel (the AttachProfiler command of the diagnostics IPC protocol), with the
// settings as the request's data. `detach` asks the profiler to revert what it did. Both act only
// on processes their user may signal, speak only to a channel the process itself serves, and
// leave requests only in a folder no one else may enter (runtime-profiler/Identity.h).
//
//===----------------------------------------------------------------------===//
#include "cli/ProfilerOptions.h"
#include "cli/Tool.h"
#include "runtime-profiler/CorProfiler.h"
#include "runtime-profiler/Identity.h"
#include "support/Format.h"
#include "support/PrivateFiles.h"
#include "weaver/passes/Pass.h"
#include "weaver/plugin/Plugin.h"
#include "weaver/spec/Spec.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace llvm;

namespace weft::cli {

namespace {

/// An error with a plain message.
Error failure(const Twine &Message) { return createStringError(inconvertibleErrorCode(), Message); }

/// The user process \p Pid runs as: an error if there is no such process, or if this user may
/// not signal it (another user's process; root may signal any).
Expected<uid_t> ownerOf(int Pid) {
  if (Pid <= 0 || (::kill(Pid, 0) != 0 && errno == ESRCH))
    return failure("there is no process " + Twine(Pid));
  if (::kill(Pid, 0) != 0 && errno == EPERM)
    return failure("process " + Twine(Pid) +
                   " belongs to another user: this user may not "
                   "signal it, so weft does not control it");
  struct stat St;
  if (::stat(("/proc/" + Twine(Pid)).str().c_str(), &St) != 0)
    return failure("cannot tell who runs process " + Twine(Pid) + ": " + std::strerror(errno));
  return St.st_uid;
}

/// The settings the profiler reads, as `weft attach` sends them ("NAME=value" lines); an error
/// if a value holds a line break (it would add a setting).
Expected<std::string> attachData(const RunOptions &O, const std::string &PassList,
                                 const std::string &ControlDir) {
  std::string D;
  std::optional<std::string> Bad;
  auto Add = [&](const char *Name, const std::string &Value) {
    if (Value.find_first_of("\r\n") != std::string::npos)
      Bad = Name;
    if (!Value.empty())
      D += std::string(Name) + "=" + Value + "\n";
  };
  Add(prof::SpecVariable, O.SpecFile.empty() ? "" : absolute(O.SpecFile));
  Add(prof::PassesVariable, PassList);
  Add(prof::LogVariable, O.LogFile.empty() ? "" : absolute(O.LogFile));
  Add(prof::OutputDirVariable, O.OutputDir.empty() ? "" : absolute(O.OutputDir));
  Add(prof::VerboseVariable, O.Verbose ? "1" : "");
  Add(prof::GcVariable, O.Gc);
  Add(prof::LttngVariable, O.Lttng ? "1" : "");
  Add(prof::ControlDirVariable, ControlDir);
  if (Bad)
    return failure("the value of " + *Bad + " holds a line break; weft does not send it");
  return D;
}

/// The diagnostics channel of .NET process \p Pid: the socket
/// $TMPDIR/dotnet-diagnostic-PID-KEY-socket its runtime listens on (the newest, if several),
/// which must be a socket that \p Owner (the process's user) or root owns.
Expected<std::string> diagnosticsSocket(int Pid, uid_t Owner) {
  const char *Tmp = std::getenv("TMPDIR");
  std::string Dir = Tmp && *Tmp ? Tmp : "/tmp";
  std::string Prefix = "dotnet-diagnostic-" + std::to_string(Pid) + "-";
  std::string Best, Refused;
  sys::TimePoint<> BestTime;
  std::error_code EC;
  for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC)) {
    StringRef Name = sys::path::filename(It->path());
    if (!Name.startswith(Prefix) || !Name.endswith("-socket"))
      continue;
    struct stat St;
    if (::lstat(It->path().c_str(), &St) != 0)
      continue;
    if (!S_ISSOCK(St.st_mode) || (St.st_uid != Owner && St.st_uid != 0)) {
      Refused = It->path() + (S_ISSOCK(St.st_mode) ? " is owned by uid " + std::to_string(St.st_uid)
                                                   : std::string(" is not a socket"));
      continue;
    }
    sys::TimePoint<> Time = sys::toTimePoint(St.st_mtim.tv_sec, St.st_mtim.tv_nsec);
    if (Best.empty() || Time > BestTime)
      Best = It->path(), BestTime = Time;
  }
  if (!Best.empty())
    return Best;
  if (!Refused.empty())
    return failure("process " + Twine(Pid) + "'s diagnostics channel is not to be trusted: " +
                   Refused + ", not by the process's user");
  return failure("process " + Twine(Pid) + " has no .NET diagnostics channel in " + Dir +
                 " (is it a .NET process of this user, started with DOTNET_EnableDiagnostics "
                 "left on?)");
}

void putU16(std::string &B, uint16_t V) { B.push_back(char(V & 0xFF)), B.push_back(char(V >> 8)); }
void putU32(std::string &B, uint32_t V) {
  for (int I = 0; I < 4; ++I)
    B.push_back(char((V >> (8 * I)) & 0xFF));
}

/// The AttachProfiler request: the IPC header (magic, size, command set 0x03 "profiler",
/// command 0x01), then the timeout in milliseconds, the CLSID, the library's path (UTF-16, with
/// its terminator, after its length in code units) and the client data (after its length).
std::string attachRequest(unsigned TimeoutMs, const std::string &Library, StringRef Data) {
  std::string P;
  putU32(P, TimeoutMs);
  constexpr prof::GUID Clsid = prof::guid("E56F61AE-E543-4D22-8B50-7334A9E7F8D6");
  putU32(P, Clsid.Data1);
  putU16(P, Clsid.Data2);
  putU16(P, Clsid.Data3);
  P.append(reinterpret_cast<const char *>(Clsid.Data4), 8);
  SmallVector<UTF16, 256> Path;
  convertUTF8ToUTF16String(Library, Path);
  if (!Path.empty() && Path.back() == 0)
    Path.pop_back(); // the converter may add a terminator; exactly one goes on the wire
  putU32(P, uint32_t(Path.size() + 1));
  for (UTF16 C : Path)
    putU16(P, C);
  putU16(P, 0);
  putU32(P, uint32_t(Data.size()));
  P += Data.str();
  std::string M("DOTNET_IPC_V1", 14); // the magic, with its NUL
  putU16(M, uint16_t(20 + P.size()));
  M.push_back(char(0x03)); // command set: profiler
  M.push_back(char(0x01)); // command: AttachProfiler
  putU16(M, 0);
  return M + P;
}

/// Connects to \p Socket, served by process \p Pid itself (SO_PEERCRED), with sends and
/// replies that give up after \p Seconds.
Expected<int> connectTo(const std::string &Socket, int Pid, uid_t Owner, unsigned Seconds) {
  sockaddr_un Addr{};
  Addr.sun_family = AF_UNIX;
  if (Socket.size() >= sizeof(Addr.sun_path))
    return failure("the socket's path is too long: " + Socket);
  std::memcpy(Addr.sun_path, Socket.c_str(), Socket.size() + 1);
  int Fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (Fd < 0)
    return failure("cannot make a socket: " + Twine(std::strerror(errno)));
  auto Close = llvm::make_scope_exit([&] { ::close(Fd); });
  timeval Limit{time_t(Seconds), 0};
  ::setsockopt(Fd, SOL_SOCKET, SO_RCVTIMEO, &Limit, sizeof Limit);
  ::setsockopt(Fd, SOL_SOCKET, SO_SNDTIMEO, &Limit, sizeof Limit);
  if (::connect(Fd, reinterpret_cast<sockaddr *>(&Addr), sizeof Addr) < 0)
    return failure("cannot connect to the process's diagnostics channel (" + Socket +
                   "): " + std::strerror(errno));
  ucred Peer{};
  socklen_t Size = sizeof Peer;
  if (::getsockopt(Fd, SOL_SOCKET, SO_PEERCRED, &Peer, &Size) != 0)
    return failure("cannot tell who serves " + Socket + ": " + std::strerror(errno));
  if (Peer.pid != Pid || (Peer.uid != Owner && Peer.uid != 0))
    return failure(Socket + " is served by process " + Twine(Peer.pid) + " (uid " +
                   Twine(Peer.uid) + "), not by process " + Twine(Pid) + "; weft does not use it");
  Close.release();
  return Fd;
}

/// Sends the request to process \p Pid on its channel \p Socket and returns the runtime's
/// HRESULT.
Expected<uint32_t> sendAttach(const std::string &Socket, int Pid, uid_t Owner, unsigned Seconds,
                              const std::string &Request) {
  Expected<int> Fd = connectTo(Socket, Pid, Owner, Seconds);
  if (!Fd)
    return Fd.takeError();
  auto Close = llvm::make_scope_exit([&] { ::close(*Fd); });
  for (size_t Done = 0; Done < Request.size();) {
    ssize_t N = ::write(*Fd, Request.data() + Done, Request.size() - Done);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return failure("cannot send the attach request (" + Socket + "): " + std::strerror(errno));
    Done += size_t(N);
  }
  uint8_t Reply[24];
  size_t Got = 0;
  while (Got < sizeof Reply) {
    ssize_t N = ::read(*Fd, Reply + Got, sizeof Reply - Got);
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return failure("process " + Twine(Pid) + " did not answer the attach request in " +
                     Twine(Seconds) + " s");
    if (N <= 0)
      break;
    Got += size_t(N);
  }
  if (Got < sizeof Reply || std::memcmp(Reply, "DOTNET_IPC_V1", 14) != 0 || Reply[16] != 0xFF)
    return failure("the process's diagnostics channel answered with no IPC reply (" + Twine(Got) +
                   " bytes)");
  return uint32_t(Reply[20]) | uint32_t(Reply[21]) << 8 | uint32_t(Reply[22]) << 16 |
         uint32_t(Reply[23]) << 24;
}

/// Where the profiler attached to process \p O.Pid logs (the profiler's logPath).
std::string logOf(const RunOptions &O) {
  if (!O.LogFile.empty())
    return absolute(O.LogFile);
  SmallString<256> Dir(O.OutputDir.empty() ? "" : absolute(O.OutputDir));
  if (Dir.empty() && sys::fs::real_path("/proc/" + Twine(O.Pid) + "/cwd", Dir))
    Dir = "(the process's current directory)";
  sys::path::append(Dir, "weft-profiler-" + Twine(O.Pid) + ".log");
  return std::string(Dir);
}

/// Whether weft's profiler is loaded into process \p Pid (its maps name the library).
bool profilerLoaded(int Pid) {
  auto Maps = MemoryBuffer::getFileAsStream("/proc/" + Twine(Pid) + "/maps");
  return Maps && (*Maps)->getBuffer().contains(std::string("/") + prof::ProfilerLibrary);
}

/// The folder of control requests for process \p Pid of user \p Owner, private to that user.
Expected<std::string> controlFolderOf(uid_t Owner, bool Create) {
  std::string Folder = prof::controlFolder(Owner);
  if (Error E = checkPrivateFolder(Folder, Owner, Create))
    return std::move(E);
  return Folder;
}

/// Leaves \p Text as the request \p Request and waits up to \p Seconds for the profiler's
/// answer: "done", or why it refused. A request not taken in time is taken back.
Expected<std::string> askProfiler(const std::string &Request, StringRef Text, uid_t Owner,
                                  unsigned Seconds) {
  std::string Reply = Request + ".reply";
  ::unlink(Reply.c_str());
  ::unlink(Request.c_str()); // one nobody took
  Expected<int> Fd = createPrivateFile(Request);
  if (!Fd)
    return Fd.takeError();
  bool Written = ::write(*Fd, Text.data(), Text.size()) == ssize_t(Text.size());
  ::close(*Fd);
  if (!Written) {
    ::unlink(Request.c_str());
    return failure("cannot write the request " + Request);
  }
  // The profiler looks for requests five times a second.
  for (unsigned Waited = 0; Waited < Seconds * 20; ++Waited) {
    if (Expected<std::string> Answer = readOwnedFile(Reply, Owner, 4096)) {
      ::unlink(Reply.c_str());
      return StringRef(*Answer).trim().str();
    } else {
      consumeError(Answer.takeError());
    }
    ::usleep(50000);
  }
  ::unlink(Request.c_str());
  return failure("the profiler did not take the request in " + Twine(Seconds) + " s");
}

} // namespace

Runner addAttachCommand(CLI::App &App) {
  auto O = std::make_shared<RunOptions>();
  CLI::App *Sub = App.add_subcommand(
      "attach", "Load weft's runtime profiler into a running .NET process, instrumenting what "
                "the spec matches (methods already compiled through ReJIT)");
  Sub->add_option("--pid", O->Pid, "The process")->required();
  addProfilerOptions(*Sub, *O, /*Attach=*/true);
  Sub->add_option("--timeout", O->Timeout,
                  "Seconds the runtime may take to load the profiler (default 10)");
  Sub->footer("Example: weft attach --pid 4242 --spec weft.json --log weft.log");
  return [O] {
    std::string PassList;
    if (Error E = checkPasses(*O, PassList)) {
      reportError(std::move(E));
      return int(ExitUsage);
    }
    if (O->SpecFile.empty() && PassList.empty())
      return reportError("attach needs --spec or --pass (what to instrument)");
    if (Expected<std::string> Checked = attachData(*O, PassList, ""); !Checked)
      return reportError(Checked.takeError());
    Expected<uid_t> Owner = ownerOf(O->Pid);
    if (!Owner)
      return reportError(Owner.takeError());
    // The process's own channel first: nothing is made for a process weft cannot attach to.
    bool Again = profilerLoaded(O->Pid);
    Expected<std::string> Socket = Again ? std::string() : diagnosticsSocket(O->Pid, *Owner);
    if (!Socket)
      return reportError(Socket.takeError());
    Expected<std::string> Folder = controlFolderOf(*Owner, /*Create=*/true);
    if (!Folder)
      return reportError(Folder.takeError());
    Expected<std::string> Data = attachData(*O, PassList, *Folder);
    if (!Data)
      return reportError(Data.takeError());
    if (Again) {
      // Loaded before and detached since (a profiler that used ReJIT cannot unload): asked to
      // start again through its control folder.
      Expected<std::string> Answer =
          askProfiler(prof::attachRequestPath(*Folder, O->Pid), *Data, *Owner, O->Timeout);
      if (!Answer)
        return reportError("process " + Twine(O->Pid) + " has weft's profiler loaded: " +
                           toString(Answer.takeError()) + " (is it still attached?)");
      if (*Answer != "done")
        return reportError("weft's profiler in process " + Twine(O->Pid) + " " + *Answer);
      outs() << "weft: attached to process " << O->Pid << " again\n";
      return int(ExitOk);
    }
    Expected<std::string> Library = findProfiler();
    if (!Library)
      return reportError(Library.takeError());
    Expected<uint32_t> Hr = sendAttach(*Socket, O->Pid, *Owner, O->Timeout + 5,
                                       attachRequest(O->Timeout * 1000, *Library, *Data));
    if (!Hr)
      return reportError(Hr.takeError());
    if (*Hr != 0)
      return reportError("process " + Twine(O->Pid) + " did not load the profiler: HRESULT 0x" +
                         hexstr(*Hr, false, 8) + " (another profiler loaded, or one that " +
                         "declined: see its log)");
    outs() << "weft: attached to process " << O->Pid << "; its log: " << logOf(*O) << "\n";
    return int(ExitOk);
  };
}

Runner addDetachCommand(CLI::App &App) {
  auto O = std::make_shared<RunOptions>();
  CLI::App *Sub = App.add_subcommand(
      "detach", "Make weft's profiler in a running .NET process revert what it instrumented and "
                "stop instrumenting");
  Sub->add_option("--pid", O->Pid, "The process")->required();
  Sub->add_option("--timeout", O->Timeout,
                  "Seconds to wait for the profiler to take the request (default 10)");
  return [O] {
    Expected<uid_t> Owner = ownerOf(O->Pid);
    if (!Owner)
      return reportError(Owner.takeError());
    Expected<std::string> Folder = controlFolderOf(*Owner, /*Create=*/false);
    if (!Folder)
      return reportError("weft is not attached to process " + Twine(O->Pid) + ": " +
                         toString(Folder.takeError()));
    Expected<std::string> Answer =
        askProfiler(prof::detachRequestPath(*Folder, O->Pid), "detach\n", *Owner, O->Timeout);
    if (!Answer)
      return reportError("process " + Twine(O->Pid) + ": " + toString(Answer.takeError()) +
                         " (is weft attached to it?)");
    if (*Answer != "done")
      return reportError("weft's profiler in process " + Twine(O->Pid) + " " + *Answer);
    outs() << "weft: the profiler in process " << O->Pid << " detached\n";
    return int(ExitOk);
  };
}

} // namespace weft::cli
