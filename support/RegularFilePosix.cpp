//===- support/RegularFilePosix.cpp - Files that are files: POSIX ---------===//
#include "support/RegularFile.h"

#include "support/Error.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>

using namespace llvm;

namespace weft {

namespace {

sys::fs::file_type typeOfMode(unsigned Mode) {
  using sys::fs::file_type;
  if (S_ISFIFO(Mode))
    return file_type::fifo_file;
  if (S_ISCHR(Mode))
    return file_type::character_file;
  if (S_ISBLK(Mode))
    return file_type::block_file;
  if (S_ISSOCK(Mode))
    return file_type::socket_file;
  if (S_ISDIR(Mode))
    return file_type::directory_file;
  if (S_ISLNK(Mode))
    return file_type::symlink_file;
  if (S_ISREG(Mode))
    return file_type::regular_file;
  return file_type::type_unknown;
}

} // namespace

std::string fileKindName(unsigned Mode) { return fileKindName(typeOfMode(Mode)); }

namespace detail {

Expected<int> openForReadWithoutWaiting(StringRef Path) {
  int Fd = ::open(Path.str().c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (Fd < 0)
    return errnoError(Path, errno);
  return Fd;
}

} // namespace detail

} // namespace weft
