//===- support/RegularFileWindows.cpp - Files that are files: Windows -----===//
//
// Windows has no FIFOs or devices in its file system's folders (a pipe or a device is opened by
// another kind of name): what the file system calls a file is one, and opening it never waits.
//
//===----------------------------------------------------------------------===//
#include "support/RegularFile.h"

#include "llvm/Support/FileSystem.h"

using namespace llvm;

namespace weft::detail {

Expected<int> openForReadWithoutWaiting(StringRef Path) {
  int Fd = -1;
  if (std::error_code EC = sys::fs::openFileForRead(Path, Fd))
    return createFileError(Path, errorCodeToError(EC));
  return Fd;
}

} // namespace weft::detail
