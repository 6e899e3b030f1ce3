//===- support/RegularFile.cpp --------------------------------------------===//
#include "support/RegularFile.h"

#include "support/Error.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;

namespace weft {

namespace {

Error notRegular(StringRef Path, unsigned Mode) {
  return createFileError(Path, plainError("is " + fileKindName(Mode) + ", not a regular file"));
}

} // namespace

std::string fileKindName(unsigned Mode) {
  if (S_ISFIFO(Mode))
    return "a FIFO";
  if (S_ISCHR(Mode))
    return "a character device";
  if (S_ISBLK(Mode))
    return "a block device";
  if (S_ISSOCK(Mode))
    return "a socket";
  if (S_ISDIR(Mode))
    return "a folder";
  if (S_ISLNK(Mode))
    return "a symbolic link";
  if (S_ISREG(Mode))
    return "a regular file";
  return "a special file";
}

Error requireRegularFile(StringRef Path) {
  struct stat St;
  if (::stat(Path.str().c_str(), &St) != 0)
    return createFileError(Path, errorCodeToError(std::error_code(errno, std::generic_category())));
  if (!S_ISREG(St.st_mode))
    return notRegular(Path, St.st_mode);
  return Error::success();
}

Expected<int> openRegularFile(StringRef Path) {
  // Devices can act on being opened (a tape rewinds): the type is checked before opening too.
  if (Error E = requireRegularFile(Path))
    return std::move(E);
  int Fd = ::open(Path.str().c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (Fd < 0)
    return createFileError(Path, errorCodeToError(std::error_code(errno, std::generic_category())));
  struct stat St = {};
  if (::fstat(Fd, &St) != 0 || !S_ISREG(St.st_mode)) {
    unsigned Mode = St.st_mode;
    ::close(Fd);
    return notRegular(Path, Mode); // swapped between the two looks
  }
  return Fd;
}

} // namespace weft
