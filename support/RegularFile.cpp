//===- support/RegularFile.cpp - Files that are files ---------------------===//
#include "support/RegularFile.h"

#include "support/Error.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"

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

/// The kind of file of mode \p Mode (st_mode). Windows' C runtime has no links or sockets.
sys::fs::file_type typeOfMode(unsigned Mode) {
  using sys::fs::file_type;
  if (S_ISFIFO(Mode))
    return file_type::fifo_file;
  if (S_ISCHR(Mode))
    return file_type::character_file;
  if (S_ISBLK(Mode))
    return file_type::block_file;
#ifdef S_ISSOCK
  if (S_ISSOCK(Mode))
    return file_type::socket_file;
#endif
  if (S_ISDIR(Mode))
    return file_type::directory_file;
#ifdef S_ISLNK
  if (S_ISLNK(Mode))
    return file_type::symlink_file;
#endif
  if (S_ISREG(Mode))
    return file_type::regular_file;
  return file_type::type_unknown;
}

Error notRegular(StringRef Path, sys::fs::file_type Type) {
  return createFileError(Path, plainError("is " + typeName(Type) + ", not a regular file"));
}

} // namespace

std::string fileKindName(unsigned Mode) { return typeName(typeOfMode(Mode)); }

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
