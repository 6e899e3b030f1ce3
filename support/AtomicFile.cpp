//===- support/AtomicFile.cpp - Writing an output all at once -------------===//
//
// The rules of AtomicFile.h once; what a path names, and how a device, FIFO or socket is opened
// for writing in place, are the system's (AtomicFilePosix.cpp, AtomicFileWindows.cpp).
//
//===----------------------------------------------------------------------===//
#include "support/AtomicFile.h"

#include "support/Error.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace weft {

namespace {

/// Writes \p Bytes to the descriptor \p Fd (binary: no newline is translated); errors name
/// \p Path.
Error writeAll(int Fd, StringRef Path, ArrayRef<uint8_t> Bytes) {
  raw_fd_ostream OS(Fd, /*shouldClose=*/false);
  OS.write(reinterpret_cast<const char *>(Bytes.data()), Bytes.size());
  OS.flush();
  if (std::error_code EC = OS.error()) {
    OS.clear_error();
    return createFileError(Path, errorCodeToError(EC));
  }
  return Error::success();
}

Error writeInPlace(const OutputTarget &T, ArrayRef<uint8_t> Bytes) {
  Expected<int> Fd = detail::openInPlace(T);
  if (!Fd)
    return Fd.takeError();
  Error E = writeAll(*Fd, T.Path, Bytes);
  std::error_code Closed = sys::Process::SafelyCloseFileDescriptor(*Fd);
  if (Closed && !E)
    return createFileError(T.Path, errorCodeToError(Closed));
  return E;
}

/// A temporary file beside \p Target, filled by \p Fill and renamed over it once complete.
Error replaceThroughTemporary(StringRef Target, function_ref<Error(int Fd)> Fill) {
  Expected<sys::fs::TempFile> Temp = sys::fs::TempFile::create(Target + ".weft-%%%%%%");
  if (!Temp)
    return createFileError(Target, Temp.takeError());
  if (Error E = Fill(Temp->FD)) {
    consumeError(Temp->discard());
    return E;
  }
  if (Error E = Temp->keep(Target)) {
    consumeError(Temp->discard());
    return createFileError(Target, std::move(E));
  }
  return Error::success();
}

} // namespace

bool isRegularOutput(StringRef Path) {
  Expected<OutputTarget> T = resolveOutput(Path);
  if (!T) {
    consumeError(T.takeError());
    return false;
  }
  return !T->inPlace();
}

Error writeFileAtomically(StringRef Named, ArrayRef<uint8_t> Bytes) {
  Expected<OutputTarget> T = resolveOutput(Named);
  if (!T)
    return T.takeError();
  if (T->inPlace())
    return writeInPlace(*T, Bytes);
  StringRef Path = T->Path;
  return replaceThroughTemporary(Path, [&](int Fd) { return writeAll(Fd, Path, Bytes); });
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

Error ScratchFile::keepAs(StringRef Named) {
  Expected<OutputTarget> T = resolveOutput(Named);
  if (!T)
    return T.takeError();
  StringRef Target = T->Path;
  if (T->inPlace()) {
    Expected<int> Fd = detail::openInPlace(*T);
    if (!Fd)
      return Fd.takeError();
    std::error_code EC = sys::fs::copy_file(Path, *Fd);
    sys::Process::SafelyCloseFileDescriptor(*Fd);
    return EC ? createFileError(Target, errorCodeToError(EC)) : Error::success();
  }
  // Made private to this user; the output gets the permissions a new file gets.
  sys::fs::setPermissions(Path, sys::fs::perms(sys::fs::all_read | sys::fs::all_write) &
                                    ~sys::fs::perms(sys::fs::getUmask()));
  if (!sys::fs::rename(Path, Target)) {
    Path.clear();
    return Error::success();
  }
  // Another file system: a copy beside the target, renamed over it.
  if (Error E = replaceThroughTemporary(Target, [&](int Fd) -> Error {
        if (std::error_code EC = sys::fs::copy_file(Path, Fd))
          return createFileError(Target, errorCodeToError(EC));
        return Error::success();
      }))
    return E;
  sys::fs::remove(Path);
  Path.clear();
  return Error::success();
}

} // namespace weft
