//===- support/AtomicFilePosix.cpp - What an output is: POSIX -------------===//
#include "support/AtomicFile.h"

#include "support/Error.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

using namespace llvm;

namespace weft {

namespace {

Error pathError(StringRef Path, const Twine &Why) { return createFileError(Path, plainError(Why)); }

/// The target of the link \p Link, as a path (relative targets count from the link's folder).
Expected<std::string> linkTarget(StringRef Link) {
  SmallString<256> Target;
  Target.resize(4096);
  ssize_t N = ::readlink(std::string(Link).c_str(), Target.data(), Target.size());
  if (N < 0)
    return errnoError(Link, errno);
  Target.resize(size_t(N));
  if (sys::path::is_absolute(Target))
    return std::string(Target);
  SmallString<256> Full(sys::path::parent_path(Link));
  sys::path::append(Full, Target);
  return std::string(Full);
}

} // namespace

Expected<OutputTarget> resolveOutput(StringRef Named) {
  std::string Path = Named.str();
  for (unsigned Hops = 0;; ++Hops) {
    struct stat St;
    if (::lstat(Path.c_str(), &St) != 0) {
      if (errno != ENOENT)
        return errnoError(Path, errno);
      if (Hops)
        return pathError(Named, "is a symbolic link to nothing ('" + Path +
                                    "' does not exist); weft does not create a link's target");
      return OutputTarget{Path, OutputTarget::Kind::Regular};
    }
    if (S_ISLNK(St.st_mode)) {
      // A link is followed only if its user made it (or root did): one that another user put
      // in a shared folder would otherwise send the output wherever they chose.
      if (St.st_uid != ::geteuid() && St.st_uid != 0)
        return pathError(Path, "is a symbolic link owned by another user (uid " + Twine(St.st_uid) +
                                   "); weft writes only through links of its user's own");
      if (Hops >= 40)
        return pathError(Named, "has too many levels of symbolic links");
      Expected<std::string> Next = linkTarget(Path);
      if (!Next)
        return Next.takeError();
      Path = std::move(*Next);
      continue;
    }
    if (S_ISDIR(St.st_mode))
      return pathError(Path, "is a directory");
    if (S_ISREG(St.st_mode))
      return OutputTarget{Path, OutputTarget::Kind::Regular};
    if (S_ISCHR(St.st_mode) || S_ISBLK(St.st_mode))
      return OutputTarget{Path, OutputTarget::Kind::Device};
    if (S_ISFIFO(St.st_mode))
      return OutputTarget{Path, OutputTarget::Kind::Fifo};
    if (S_ISSOCK(St.st_mode))
      return OutputTarget{Path, OutputTarget::Kind::Socket};
    return pathError(Path, "is neither a file, a device, a FIFO nor a socket");
  }
}

/// Opens what \p T names for writing in place: a device or FIFO opened (never truncated,
/// created or followed), a socket connected to.
Expected<int> detail::openInPlace(const OutputTarget &T) {
  if (T.What != OutputTarget::Kind::Socket) {
    int Fd = ::open(T.Path.c_str(), O_WRONLY | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
    if (Fd < 0)
      return errnoError(T.Path, errno);
    struct stat St;
    if (::fstat(Fd, &St) != 0 || S_ISREG(St.st_mode) || S_ISDIR(St.st_mode)) {
      ::close(Fd); // replaced by a file since it was looked at: not written over in place
      return pathError(T.Path, "changed while it was being opened");
    }
    return Fd;
  }
  sockaddr_un Addr{};
  Addr.sun_family = AF_UNIX;
  if (T.Path.size() >= sizeof Addr.sun_path)
    return pathError(T.Path, "is a socket whose path is too long to connect to");
  std::memcpy(Addr.sun_path, T.Path.c_str(), T.Path.size() + 1);
  int Fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (Fd < 0)
    return errnoError(T.Path, errno);
  if (::connect(Fd, reinterpret_cast<sockaddr *>(&Addr), sizeof Addr) != 0) {
    int Err = errno;
    ::close(Fd);
    return errnoError(T.Path, Err);
  }
  return Fd;
}

} // namespace weft
