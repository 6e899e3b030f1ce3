//===- support/AtomicFileWindows.cpp - Writing an output all at once: Windows -===//
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
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace weft {

namespace {

Error pathError(StringRef Path, const Twine &Why) { return createFileError(Path, plainError(Why)); }

/// Writes \p Bytes to the C runtime's descriptor \p Fd (binary: no newline is translated);
/// errors name \p Path.
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

/// Opens the device or pipe \p T names for writing in place (never created or truncated).
Expected<int> openInPlace(const OutputTarget &T) {
  int Fd = -1;
  if (std::error_code EC =
          sys::fs::openFileForWrite(T.Path, Fd, sys::fs::CD_OpenExisting, sys::fs::OF_None))
    return createFileError(T.Path, errorCodeToError(EC));
  return Fd;
}

Error writeInPlace(const OutputTarget &T, ArrayRef<uint8_t> Bytes) {
  Expected<int> Fd = openInPlace(T);
  if (!Fd)
    return Fd.takeError();
  Error E = writeAll(*Fd, T.Path, Bytes);
  sys::Process::SafelyCloseFileDescriptor(*Fd);
  return E;
}

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
  Expected<sys::fs::TempFile> Temp = sys::fs::TempFile::create(Path + ".weft-%%%%%%");
  if (!Temp)
    return createFileError(Path, Temp.takeError());
  if (Error E = writeAll(Temp->FD, Path, Bytes)) {
    consumeError(Temp->discard());
    return E;
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

Error ScratchFile::keepAs(StringRef Named) {
  Expected<OutputTarget> T = resolveOutput(Named);
  if (!T)
    return T.takeError();
  StringRef Target = T->Path;
  if (T->inPlace()) {
    Expected<int> Fd = openInPlace(*T);
    if (!Fd)
      return Fd.takeError();
    std::error_code EC = sys::fs::copy_file(Path, *Fd);
    sys::Process::SafelyCloseFileDescriptor(*Fd);
    return EC ? createFileError(Target, errorCodeToError(EC)) : Error::success();
  }
  if (!sys::fs::rename(Path, Target)) {
    Path.clear();
    return Error::success();
  }
  // Another volume: a copy beside the target, renamed over it.
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
