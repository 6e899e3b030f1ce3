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

} // namespace weft
