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

} // namespace weft::cli
