//===- support/RegularFile.h - Files that are files -------------*- C++ -*-===//
//
// What weft reads as a dependency (a spec, a key, a plugin, a probe assembly, a file whose
// digest decides a cache hit) must be a regular file: a FIFO would block the reader until someone
// writes to it, a device may never end or act on being opened, and a folder is no file at all.
// Such a path is refused by its type, before it is read.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_SUPPORT_REGULARFILE_H
#define WEFT_SUPPORT_REGULARFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"

#include <string>

namespace weft {

/// What a file of type \p Type is, for messages: "a FIFO", "a folder", ...
std::string fileKindName(llvm::sys::fs::file_type Type);
/// The same of a file of mode \p Mode (POSIX's st_mode; RegularFilePosix.cpp).
std::string fileKindName(unsigned Mode);

/// Succeeds if \p Path (symbolic links followed) is a regular file; else an error naming the path
/// and what it is. A missing file is an error too.
llvm::Error requireRegularFile(llvm::StringRef Path);

/// Opens \p Path for reading without blocking on what is not a regular file (it is opened with
/// O_NONBLOCK, so a FIFO with no writer does not wait), and keeps it open only if it is one: what
/// is checked is what is read. The descriptor is closed on exec; the caller closes it.
llvm::Expected<int> openRegularFile(llvm::StringRef Path);

namespace detail {
/// \p Path opened for reading without waiting for a writer (a FIFO), closed on exec; errors name
/// the path. What differs between systems: RegularFilePosix.cpp, RegularFileWindows.cpp.
llvm::Expected<int> openForReadWithoutWaiting(llvm::StringRef Path);
} // namespace detail

} // namespace weft

#endif
