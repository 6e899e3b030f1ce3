//===- support/PrivateFiles.h - Files only their user controls --*- C++ -*-===//
//
// What weft reads to be steered (a watched spec, a control request) and what it writes that
// holds a program's data (argument values, logs) must be its user's alone. These functions check
// with lstat/fstat, never follow a symbolic link, never block on a FIFO and never map a file
// another process may truncate; their errors say what was refused and why. On Windows
// (support/PrivateFilesWindows.cpp) the owner and the writers are read from the file's security
// descriptor, and the private folders (the control requests of `weft attach`) are refused.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_SUPPORT_PRIVATEFILES_H
#define WEFT_SUPPORT_PRIVATEFILES_H

#include "support/Port.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace weft {

/// Checks that \p Path is a folder (not a link to one) that \p Owner owns and no one else may
/// enter (mode 0700 or narrower). With \p Create, a missing folder is made so (and, made by root
/// for another user, given to that user).
llvm::Error checkPrivateFolder(llvm::StringRef Path, port::UserId Owner, bool Create);

/// Reads \p Path whole, if it is a regular file (not a link, FIFO or device) that \p Owner or
/// root owns, that no other user may write (group-writable only for \p Owner's own group), of at
/// most \p MaxBytes. Opened without following a link and without blocking; read, not mapped.
llvm::Expected<std::string> readOwnedFile(llvm::StringRef Path, port::UserId Owner,
                                          uint64_t MaxBytes);

/// Creates \p Path for writing: a new file (O_EXCL: never one that exists, never through a
/// link), closed on exec, of mode \p Mode (0600: only its user reads it). The descriptor.
llvm::Expected<int> createPrivateFile(llvm::StringRef Path, unsigned Mode = 0600);

/// Opens \p Path to append to it, creating it (mode \p Mode) if it does not exist: never
/// through a link, and only a regular file this user owns. For a log several processes share.
llvm::Expected<int> openOwnedForAppend(llvm::StringRef Path, unsigned Mode = 0600);

} // namespace weft

#endif
