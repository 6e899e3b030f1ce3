//===- support/RegularFile.cpp - Files that are files ---------------------===//
#include "support/RegularFile.h"

#include "support/Error.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"

using namespace llvm;

namespace weft {

std::string fileKindName(sys::fs::file_type Type) {
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

namespace {

Error notRegular(StringRef Path, sys::fs::file_type Type) {
  return createFileError(Path, plainError("is " + fileKindName(Type) + ", not a regular file"));
}

} // namespace

Error requireRegularFile(StringRef Path) {
  sys::fs::file_status St;
  if (std::error_code EC = sys::fs::status(Path, St))
    return createFileError(Path, errorCodeToError(EC));
  if (St.type() != sys::fs::file_type::regular_file)
    return notRegular(Path, St.type());
  return Error::success();
}

Expected<int> openRegularFile(StringRef Path) {
  // Devices can act on being opened (a tape rewinds): the type is checked before opening too.
  if (Error E = requireRegularFile(Path))
    return std::move(E);
  Expected<int> Fd = detail::openForReadWithoutWaiting(Path);
  if (!Fd)
    return Fd.takeError();
  sys::fs::file_status St;
  if (sys::fs::status(*Fd, St) || St.type() != sys::fs::file_type::regular_file) {
    sys::Process::SafelyCloseFileDescriptor(*Fd);
    return notRegular(Path, St.type()); // swapped between the two looks
  }
  return Fd;
}

} // namespace weft
