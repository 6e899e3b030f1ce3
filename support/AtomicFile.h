//===- support/AtomicFile.h - Writing an output all at once -----*- C++ -*-===//
//
// Outputs are written so that a failure leaves nothing half written and nothing that is not a
// regular file is ever replaced:
// - a regular file (or a name that does not exist yet) is written to a temporary file beside it
//   and renamed over it once complete;
// - a character or block device, a FIFO or a socket is written in place (opened, or connected
//   to, and written), never replaced: `-o /dev/null` discards, `-o some.fifo` feeds its reader;
// - a symbolic link is written through: its target gets the output by the rules above and the
//   link stays, as `cp` and a shell's `>` do. A link that another user owns (one planted in a
//   shared folder such as /tmp) is refused, as is a link to nothing.
// A directory is refused. Side files (a PDB, a coverage map, ILAsm's resource files) belong
// beside a regular file only: isRegularOutput says whether an output is one.
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

/// Where an output named \p Path goes.
struct OutputTarget {
  std::string Path; // the file written: \p Path, or the target of the link it names
  enum class Kind { Regular, Device, Fifo, Socket } What = Kind::Regular;
  bool inPlace() const { return What != Kind::Regular; }
};

/// Resolves \p Path for writing (following a link of the user's own); errors name the path and
/// say why it cannot be an output. Differs between systems (AtomicFilePosix.cpp,
/// AtomicFileWindows.cpp).
llvm::Expected<OutputTarget> resolveOutput(llvm::StringRef Path);

/// Whether \p Path names a regular file, or nothing yet (after a link of the user's own): the
/// outputs beside which side files may go.
bool isRegularOutput(llvm::StringRef Path);

/// Writes \p Bytes to \p Path by the rules above; errors name the path.
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
  /// Moves the file to \p Target by the rules above (renamed, or copied beside it and renamed
  /// when it is on another file system; copied into a device or FIFO); errors name the target.
  llvm::Error keepAs(llvm::StringRef Target);

private:
  std::string Path;
};

namespace detail {
/// Opens what \p T names for writing in place, never creating or truncating it; errors name it.
/// Differs between systems, as resolveOutput does.
llvm::Expected<int> openInPlace(const OutputTarget &T);
} // namespace detail

} // namespace weft

#endif
