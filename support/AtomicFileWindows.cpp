//===- support/AtomicFileWindows.cpp - What an output is: Windows ---------===//
//
// The rules of support/AtomicFile.h as Windows can keep them: a file (or a new name) is written
// to a temporary file beside it and renamed over it (LLVM's rename replaces the file, retrying
// while another process holds it open); a device (NUL, CON) or a named pipe is written in place.
// A symbolic link is followed by the file system itself: its target gets the output, but whose
// link it is is not checked (Windows lets only administrators and developer mode make links).
//
//===----------------------------------------------------------------------===//
#include "support/AtomicFile.h"

#include "support/Error.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace weft {

namespace {

Error pathError(StringRef Path, const Twine &Why) { return createFileError(Path, plainError(Why)); }

} // namespace

Expected<OutputTarget> resolveOutput(StringRef Named) {
  std::string Path = Named.str();
  sys::fs::file_status St;
  if (std::error_code EC = sys::fs::status(Path, St)) {
    if (EC != std::errc::no_such_file_or_directory)
      return createFileError(Path, errorCodeToError(EC));
    return OutputTarget{Path, OutputTarget::Kind::Regular};
  }
  switch (St.type()) {
  case sys::fs::file_type::directory_file: return pathError(Path, "is a directory");
  case sys::fs::file_type::regular_file: return OutputTarget{Path, OutputTarget::Kind::Regular};
  case sys::fs::file_type::character_file:
  case sys::fs::file_type::block_file: return OutputTarget{Path, OutputTarget::Kind::Device};
  case sys::fs::file_type::fifo_file: return OutputTarget{Path, OutputTarget::Kind::Fifo};
  default: return pathError(Path, "is neither a file, a device nor a pipe");
  }
}

/// Opens the device or pipe \p T names for writing in place (never created or truncated).
Expected<int> detail::openInPlace(const OutputTarget &T) {
  int Fd = -1;
  if (std::error_code EC =
          sys::fs::openFileForWrite(T.Path, Fd, sys::fs::CD_OpenExisting, sys::fs::OF_None))
    return createFileError(T.Path, errorCodeToError(EC));
  return Fd;
}

} // namespace weft
