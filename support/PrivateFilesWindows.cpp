//===- support/PrivateFilesWindows.cpp - Files only their user controls ---===//
//
// Windows decides who may read or write a file by its security descriptor, which weft does not
// check yet: what needs a private file (the profiler's control requests, `weft attach`) is
// refused there rather than done without the checks support/PrivateFiles.h promises.
//
//===----------------------------------------------------------------------===//
#include "support/Error.h"
#include "support/PrivateFiles.h"

using namespace llvm;

namespace weft {

namespace {

Error notYet(StringRef Path) {
  return createFileError(Path, plainError("private files are not supported on Windows yet"));
}

} // namespace

Error checkPrivateFolder(StringRef Path, port::UserId Owner, bool Create) { return notYet(Path); }

Expected<std::string> readOwnedFile(StringRef Path, port::UserId Owner, uint64_t MaxBytes) {
  return notYet(Path);
}

Expected<int> createPrivateFile(StringRef Path, unsigned Mode) { return notYet(Path); }

Expected<int> openOwnedForAppend(StringRef Path, unsigned Mode) { return notYet(Path); }

} // namespace weft
