//===- support/PrivateFilesPosix.cpp - Files only their user controls -----===//
#include "support/PrivateFiles.h"

#include "support/Error.h"
#include "support/RegularFile.h"

#include "llvm/ADT/Twine.h"

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;

namespace weft {

namespace {

Error refused(StringRef Path, const Twine &Why) { return createFileError(Path, plainError(Why)); }

/// "0755".
std::string modeText(mode_t Mode) {
  char Buf[8];
  std::snprintf(Buf, sizeof Buf, "0%03o", unsigned(Mode & 0777));
  return Buf;
}

} // namespace

Error checkPrivateFolder(StringRef Path, uid_t Owner, bool Create) {
  std::string P = Path.str();
  struct stat St;
  if (::lstat(P.c_str(), &St) != 0) {
    if (errno != ENOENT || !Create)
      return errnoError(Path, errno);
    if (::mkdir(P.c_str(), 0700) != 0 && errno != EEXIST)
      return errnoError(Path, errno);
    if (::lstat(P.c_str(), &St) != 0)
      return errnoError(Path, errno);
    // Made by root for another user's process: that user's folder.
    if (S_ISDIR(St.st_mode) && St.st_uid == ::geteuid() && Owner != St.st_uid && ::geteuid() == 0 &&
        ::lchown(P.c_str(), Owner, gid_t(-1)) == 0)
      St.st_uid = Owner;
  }
  if (!S_ISDIR(St.st_mode))
    return refused(Path, Twine("is ") + fileKindName(St.st_mode) + ", not a folder");
  if (St.st_uid != Owner)
    return refused(Path, "is owned by uid " + Twine(St.st_uid) + ", not by uid " + Twine(Owner));
  if (St.st_mode & 077)
    return refused(Path, "may be entered by other users (mode " + modeText(St.st_mode) +
                             "); it must be 0700");
  return Error::success();
}

Expected<std::string> readOwnedFile(StringRef Path, uid_t Owner, uint64_t MaxBytes) {
  int Fd = ::open(Path.str().c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (Fd < 0) {
    if (errno == ELOOP)
      return refused(Path, "is a symbolic link");
    return errnoError(Path, errno);
  }
  struct Closer {
    int Fd;
    ~Closer() { ::close(Fd); }
  } Close{Fd};
  struct stat St;
  if (::fstat(Fd, &St) != 0)
    return errnoError(Path, errno);
  if (!S_ISREG(St.st_mode))
    return refused(Path, Twine("is ") + fileKindName(St.st_mode));
  if (St.st_uid != Owner && St.st_uid != 0)
    return refused(Path, "is owned by another user (uid " + Twine(St.st_uid) + ")");
  if ((St.st_mode & S_IWOTH) || ((St.st_mode & S_IWGRP) && St.st_gid != ::getegid()))
    return refused(Path, "may be written by other users");
  if (uint64_t(St.st_size) > MaxBytes)
    return refused(Path, "is " + Twine(uint64_t(St.st_size)) + " bytes, more than the " +
                             Twine(MaxBytes) + " weft reads");
  std::string Text;
  Text.resize(size_t(St.st_size));
  size_t Got = 0;
  while (Got < Text.size()) {
    ssize_t N = ::read(Fd, Text.data() + Got, Text.size() - Got);
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0)
      return errnoError(Path, errno);
    if (N == 0)
      break; // shortened while read: what is there
    Got += size_t(N);
  }
  Text.resize(Got);
  return Text;
}

Expected<int> createPrivateFile(StringRef Path, unsigned Mode) {
  int Fd = ::open(Path.str().c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, Mode);
  if (Fd < 0)
    return errnoError(Path, errno);
  return Fd;
}

Expected<int> openOwnedForAppend(StringRef Path, unsigned Mode) {
  int Fd =
      ::open(Path.str().c_str(),
             O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, Mode);
  if (Fd < 0) {
    if (errno == ELOOP)
      return refused(Path, "is a symbolic link");
    return errnoError(Path, errno);
  }
  struct stat St;
  Error Problem = Error::success();
  if (::fstat(Fd, &St) != 0)
    Problem = errnoError(Path, errno);
  else if (!S_ISREG(St.st_mode))
    Problem = refused(Path, Twine("is ") + fileKindName(St.st_mode));
  else if (St.st_uid != ::geteuid())
    Problem = refused(Path, "is owned by another user (uid " + Twine(St.st_uid) + ")");
  if (Problem) {
    ::close(Fd);
    return std::move(Problem);
  }
  ::fcntl(Fd, F_SETFL, O_WRONLY | O_APPEND); // writes may block as any log's do
  return Fd;
}

} // namespace weft
