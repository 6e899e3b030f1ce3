//===- support/AtomicFile.h - Writing a file all at once --------*- C++ -*-===//
//
// Output files are written to a temporary file beside the target and renamed over it once
// complete, so that a failure leaves no partial output and the target is never half written.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_SUPPORT_ATOMICFILE_H
#define WEFT_SUPPORT_ATOMICFILE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace weft {

/// Writes \p Bytes to \p Path atomically; errors name the path.
llvm::Error writeFileAtomically(llvm::StringRef Path, llvm::ArrayRef<uint8_t> Bytes);

/// A temporary file made to hold output too large for memory: removed when this goes, unless it
/// was moved into place with keepAs.
class ScratchFile {
public:
  ScratchFile() = default;
  explicit ScratchFile(std::string Path) : Path(std::move(Path)) {}
  ScratchFile(ScratchFile &&Other) noexcept : Path(std::move(Other.Path)) { Other.Path.clear(); }
  ScratchFile &operator=(ScratchFile &&Other) noexcept;
  ScratchFile(const ScratchFile &) = delete;
  ScratchFile &operator=(const ScratchFile &) = delete;
  ~ScratchFile();

  const std::string &path() const { return Path; }
  explicit operator bool() const { return !Path.empty(); }
  /// Moves the file to \p Target atomically (renamed, or copied beside it and renamed when it is
  /// on another file system); errors name the target.
  llvm::Error keepAs(llvm::StringRef Target);

private:
  std::string Path;
};

} // namespace weft

#endif
