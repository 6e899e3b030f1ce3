//===- support/PortPosix.cpp - What differs between systems: POSIX --------===//
#include "support/Port.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <type_traits>
#include <unistd.h>
#include <vector>

using namespace llvm;

// PrivateFilesPosix.cpp and the profiler take uid_t for it.
static_assert(std::is_same_v<weft::port::UserId, uid_t>);

namespace weft::port {

UserId currentUser() { return ::geteuid(); }

bool isFolderOwnedBy(const char *Path, UserId User) {
  struct stat St;
  return ::lstat(Path, &St) == 0 && S_ISDIR(St.st_mode) && St.st_uid == User;
}

uint32_t currentThreadId() { return uint32_t(syscall(SYS_gettid)); }

bool nameExists(const char *Path) {
  struct stat St;
  return ::lstat(Path, &St) == 0;
}

int createNewFile(const char *Path) {
  return ::open(Path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
}

std::string libraryPathOf(const void *Address) {
  Dl_info Info{};
  if (!dladdr(Address, &Info) || !Info.dli_fname)
    return {};
  return Info.dli_fname;
}

bool makeLibraryGlobal(const std::string &Path, std::string &Why) {
  if (dlopen(Path.c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL))
    return true;
  const char *Reason = dlerror();
  Why = Reason ? Reason : "unknown";
  return false;
}

std::vector<std::string> commandLine() {
  std::vector<std::string> Argv;
  if (auto Cmd = MemoryBuffer::getFileAsStream("/proc/self/cmdline")) {
    SmallVector<StringRef, 16> Parts;
    (*Cmd)->getBuffer().split(Parts, '\0', -1, /*KeepEmpty=*/false);
    for (StringRef A : Parts)
      Argv.push_back(A.str());
  }
  return Argv;
}

std::string executablePath() {
  SmallString<256> Exe;
  if (sys::fs::real_path("/proc/self/exe", Exe))
    return {};
  return std::string(Exe);
}

void setEnvironment(const char *Name, const char *Value) { ::setenv(Name, Value, 1); }

void unsetEnvironment(const char *Name) { ::unsetenv(Name); }

namespace {

/// The command's process, for the signal handlers.
volatile sig_atomic_t RunningChild = 0;

/// Passes a signal that asks weft to stop (a service manager's SIGTERM, a terminal's SIGINT) on
/// to the command, which decides what to do with it; weft exits when the command does.
void forwardSignal(int Signal) {
  if (RunningChild > 0)
    ::kill(pid_t(RunningChild), Signal);
}

} // namespace

Expected<int> runCommand(ArrayRef<std::string> Command) {
  std::vector<char *> Argv;
  for (const std::string &A : Command)
    Argv.push_back(const_cast<char *>(A.c_str()));
  Argv.push_back(nullptr);
  pid_t Child = fork();
  if (Child < 0)
    return createStringError(inconvertibleErrorCode(),
                             Twine("cannot start '") + Command[0] + "': " + std::strerror(errno));
  if (Child == 0) {
    execvp(Argv[0], Argv.data());
    int Err = errno;
    errs() << "weft: error: cannot run '" << Command[0] << "': " << std::strerror(Err) << '\n';
    _exit(127);
  }
  RunningChild = Child;
  struct sigaction Forward {};
  Forward.sa_handler = forwardSignal;
  sigemptyset(&Forward.sa_mask);
  for (int Signal : {SIGTERM, SIGINT, SIGHUP, SIGQUIT})
    sigaction(Signal, &Forward, nullptr);
  int Status = 0;
  while (waitpid(Child, &Status, 0) < 0)
    if (errno != EINTR)
      return createStringError(inconvertibleErrorCode(),
                               Twine("waiting for '") + Command[0] + "': " + std::strerror(errno));
  if (WIFEXITED(Status))
    return WEXITSTATUS(Status);
  if (WIFSIGNALED(Status))
    return 128 + WTERMSIG(Status);
  return 1;
}

void *loadLibraryNow(const std::string &Path, std::string &Why) {
  void *Handle = ::dlopen(Path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!Handle) {
    const char *Reason = ::dlerror();
    Why = Reason ? Reason : "unknown";
  }
  return Handle;
}

void preferLargeHeapPages() {
#if defined(__linux__) && defined(__GLIBC__) && defined(MADV_HUGEPAGE)
  // glibc's heap grows by moving the break: a block as large as the heap is allowed to take
  // (glibc gives larger ones mappings of their own) is taken once, the part of it in whole large
  // pages marked for them, and the block given back, kept in the heap for what comes later.
  constexpr size_t Large = size_t(2) << 20, Block = size_t(32) << 20;
  if (!mallopt(M_MMAP_THRESHOLD, int(Block)) || !mallopt(M_TRIM_THRESHOLD, int(2 * Block)))
    return;
  void *P = std::malloc(Block - Large);
  if (!P)
    return;
  uintptr_t Start = (uintptr_t(P) + Large - 1) & ~(Large - 1);
  uintptr_t End = (uintptr_t(P) + Block - Large) & ~(Large - 1);
  if (End > Start)
    ::madvise(reinterpret_cast<void *>(Start), End - Start, MADV_HUGEPAGE);
  std::free(P);
#endif
}

} // namespace weft::port
