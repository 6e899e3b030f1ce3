//===- support/RegularFilePosix.cpp - Files that are files: POSIX ---------===//
#include "support/RegularFile.h"

#include "support/Error.h"

#include <cerrno>
#include <fcntl.h>

using namespace llvm;

namespace weft::detail {

Expected<int> openForReadWithoutWaiting(StringRef Path) {
  int Fd = ::open(Path.str().c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (Fd < 0)
    return errnoError(Path, errno);
  return Fd;
}

} // namespace weft::detail
