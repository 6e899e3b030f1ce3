//===- pe/Sha256.h - SHA-256 of whole images --------------------*- C++ -*-===//
//
// SHA-256 through OpenSSL's libcrypto, which uses the processor's SHA instructions where it has
// them: about ten times the speed of LLVM's (support/Digest.h) on this machine, which matters
// for whole images (a weave's record of its input, weft diff's checks of it) and not for the
// small pieces the strong-name and PDB code hash.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_PE_SHA256_H
#define WEFT_PE_SHA256_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"

#include <memory>
#include <string>

namespace weft::pe {

/// The SHA-256 of \p Bytes, in lower-case hex.
std::string sha256Hex(llvm::ArrayRef<uint8_t> Bytes);

/// The SHA-256 of the file \p Path, in lower-case hex, read in pieces: its pages are not mapped
/// into the process (they would add the file's size to its memory). Errors name the file.
llvm::Expected<std::string> fileSha256Hex(llvm::StringRef Path);
/// The same of the file open as \p F (named \p Path in errors), read from where it stands to its
/// end; \p F stays open.
llvm::Expected<std::string> fileSha256Hex(llvm::sys::fs::file_t F, llvm::StringRef Path);
/// The same of \p Path if it is a regular file; one of another kind (a FIFO, a device, a folder)
/// is refused by its type, not read (support/RegularFile.h).
llvm::Expected<std::string> regularFileSha256Hex(llvm::StringRef Path);

/// A SHA-256 of bytes that come in pieces (a download, say).
class Sha256Stream {
public:
  Sha256Stream();
  Sha256Stream(const Sha256Stream &) = delete;
  Sha256Stream &operator=(const Sha256Stream &) = delete;
  ~Sha256Stream();
  void update(llvm::ArrayRef<uint8_t> Bytes);
  /// The digest of everything given, in lower-case hex; empty if the library failed.
  std::string hex();

private:
  struct State;
  std::unique_ptr<State> S;
};

} // namespace weft::pe

#endif
