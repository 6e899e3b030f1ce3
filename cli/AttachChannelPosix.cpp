//===- cli/AttachChannelPosix.cpp - How attach reaches a process: POSIX ---===//
//
// The .NET runtime's diagnostics channel is a Unix domain socket in $TMPDIR; control requests are
// files in a folder only their user may enter; who runs a process is read from /proc.
//
//===----------------------------------------------------------------------===//
#include "cli/AttachChannel.h"
#include "runtime-profiler/Identity.h"
#include "support/PrivateFiles.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

using namespace llvm;

namespace weft::cli {

namespace {

/// An error with a plain message.
Error failure(const Twine &Message) { return createStringError(inconvertibleErrorCode(), Message); }

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

} // namespace

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

} // namespace weft::cli
