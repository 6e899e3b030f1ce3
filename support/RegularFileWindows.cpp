//===- support/RegularFileWindows.cpp - Files that are files: Windows -----===//
//
// Windows has no FIFOs or devices in its file system's folders (a pipe or a device is opened by
// another kind of name): what the file system calls a file is one. The modes fileKindName takes
// are the C runtime's stat modes, which have no links or sockets.
//
//===----------------------------------------------------------------------===//
#include "support/Error.h"
#include "support/RegularFile.h"

#include "llvm/Support/FileSystem.h"

#include <sys/stat.h>

using namespace llvm;

namespace weft {

namespace {

std::string typeName(sys::fs::file_type Type) {
  switch (Type) {
  case sys::fs::file_type::directory_file: return "a folder";
  case sys::fs::file_type::fifo_file: return "a FIFO";
  case sys::fs::file_type::character_file: return "a character device";
  case sys::fs::file_type::block_file: return "a block device";
  case sys::fs::file_type::socket_file: return "a socket";
  case sys::fs::file_type::symlink_file: return "a symbolic link";
  case sys::fs::file_type::regular_file: return "a regular file";
  default: return "a special file";
  }
}

} // namespace

std::string fileKindName(unsigned Mode) {
  if (S_ISFIFO(Mode))
    return "a FIFO";
  if (S_ISCHR(Mode))
    return "a character device";
  if (S_ISBLK(Mode))
    return "a block device";
  if (S_ISDIR(Mode))
    return "a folder";
  if (S_ISREG(Mode))
    return "a regular file";
  return "a special file";
}

Error requireRegularFile(StringRef Path) {
  sys::fs::file_status St;
  if (std::error_code EC = sys::fs::status(Path, St))
    return createFileError(Path, errorCodeToError(EC));
  if (St.type() != sys::fs::file_type::regular_file)
    return createFileError(Path, plainError("is " + typeName(St.type()) + ", not a regular file"));
  return Error::success();
}

Expected<int> openRegularFile(StringRef Path) {
  if (Error E = requireRegularFile(Path))
    return std::move(E);
  int Fd = -1;
  if (std::error_code EC = sys::fs::openFileForRead(Path, Fd))
    return createFileError(Path, errorCodeToError(EC));
  return Fd;
}

} // namespace weft
