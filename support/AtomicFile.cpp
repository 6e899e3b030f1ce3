//===- support/AtomicFile.cpp - Writing a file all at once ----------------===//
#include "support/AtomicFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace weft {

Error writeFileAtomically(StringRef Path, ArrayRef<uint8_t> Bytes) {
  // A temporary file beside the target, renamed over it once complete.
  Expected<sys::fs::TempFile> Temp = sys::fs::TempFile::create(Path + ".weft-%%%%%%");
  if (!Temp)
    return createFileError(Path, Temp.takeError());
  {
    raw_fd_ostream OS(Temp->FD, /*shouldClose=*/false);
    OS.write(reinterpret_cast<const char *>(Bytes.data()), Bytes.size());
    OS.flush();
    if (OS.has_error()) {
      std::error_code EC = OS.error();
      OS.clear_error();
      consumeError(Temp->discard());
      return createFileError(Path, errorCodeToError(EC));
    }
  }
  if (Error E = Temp->keep(Path)) {
    consumeError(Temp->discard());
    return createFileError(Path, std::move(E));
  }
  return Error::success();
}

ScratchFile &ScratchFile::operator=(ScratchFile &&Other) noexcept {
  if (this != &Other) {
    if (!Path.empty())
      sys::fs::remove(Path);
    Path = std::move(Other.Path);
    Other.Path.clear();
  }
  return *this;
}

ScratchFile::~ScratchFile() {
  if (!Path.empty())
    sys::fs::remove(Path);
}

Error ScratchFile::keepAs(StringRef Target) {
  // Made private to this user; the output gets the permissions a new file gets.
  sys::fs::setPermissions(Path, sys::fs::perms(sys::fs::all_read | sys::fs::all_write) &
                                    ~sys::fs::perms(sys::fs::getUmask()));
  if (!sys::fs::rename(Path, Target)) {
    Path.clear();
    return Error::success();
  }
  // Another file system: a copy beside the target, renamed over it.
  Expected<sys::fs::TempFile> Temp = sys::fs::TempFile::create(Target + ".weft-%%%%%%");
  if (!Temp)
    return createFileError(Target, Temp.takeError());
  if (std::error_code EC = sys::fs::copy_file(Path, Temp->FD)) {
    consumeError(Temp->discard());
    return createFileError(Target, errorCodeToError(EC));
  }
  if (Error E = Temp->keep(Target)) {
    consumeError(Temp->discard());
    return createFileError(Target, std::move(E));
  }
  sys::fs::remove(Path);
  Path.clear();
  return Error::success();
}

} // namespace weft
