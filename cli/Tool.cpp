//===- cli/Tool.cpp -------------------------------------------------------===//
#include "cli/Tool.h"

#include "support/Error.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace weft::cli {

int reportError(Error E) {
  handleAllErrors(std::move(E), [](const ErrorInfoBase &EI) {
    WithColor::error(errs(), "weft") << EI.message() << '\n';
  });
  return ExitError;
}

int reportError(const Twine &Message) {
  WithColor::error(errs(), "weft") << Message << '\n';
  return ExitError;
}

void reportWarning(const Twine &Message) { WithColor::warning(errs(), "weft") << Message << '\n'; }

Expected<Input> openInput(const std::string &Path, bool AllowNative, bool AllowPdb) {
  Input In;
  In.Path = Path;
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buf)
    return createFileError(Path, errorCodeToError(Buf.getError()));
  ArrayRef<uint8_t> Bytes = arrayRefFromStringRef((*Buf)->getBuffer());
  if (metadata::looksLikeWindowsPdb(Bytes))
    return createFileError(Path, plainError("a Windows (MSF) PDB: weft reads portable PDBs only"));
  if (metadata::looksLikePortablePdb(Bytes)) {
    if (!AllowPdb)
      return createFileError(Path, plainError("a portable PDB, not an assembly: it holds no IL "
                                              "(use `weft info` or `weft dump --raw`)"));
    Expected<std::unique_ptr<metadata::Module>> M = metadata::Module::create(Bytes, 0);
    if (!M)
      return createFileError(Path, M.takeError());
    In.Module = std::move(*M);
    In.PdbBuffer = std::move(*Buf);
    return std::move(In);
  }
  Expected<std::unique_ptr<pe::Image>> Img = pe::Image::create(std::move(*Buf));
  if (!Img)
    return createFileError(Path, Img.takeError());
  In.Image = std::move(*Img);
  if (!In.Image->isManaged()) {
    if (AllowNative)
      return std::move(In);
    return createFileError(Path, plainError("not a .NET assembly: the PE image has no CLI header"));
  }
  Expected<std::unique_ptr<metadata::Module>> M =
      metadata::Module::create(In.Image->metadata(), In.Image->metadataOffset());
  if (!M)
    return createFileError(Path, M.takeError());
  In.Module = std::move(*M);
  return std::move(In);
}

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

} // namespace weft::cli
