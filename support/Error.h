//===- support/Error.h - Errors about malformed input -----------*- C++ -*-===//
//
// Every problem found in an input file is reported as a FormatError: the structure that was being
// read, the file offset where the problem is, and what is wrong. The file name is added by whoever
// opened the file (llvm::createFileError), so the layers below never need to know it.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_SUPPORT_ERROR_H
#define WEFT_SUPPORT_ERROR_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace weft {

class FormatError : public llvm::ErrorInfo<FormatError> {
public:
  static char ID;

  FormatError(std::string Structure, uint64_t Offset, std::string Message)
      : Structure(std::move(Structure)), Offset(Offset), Message(std::move(Message)) {}

  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override;

  const std::string &structure() const { return Structure; }
  uint64_t offset() const { return Offset; }
  const std::string &what() const { return Message; }

private:
  std::string Structure;
  uint64_t Offset;
  std::string Message;
};

/// Makes an error about the structure \p Structure at file offset \p Offset.
llvm::Error formatError(const llvm::Twine &Structure, uint64_t Offset, const llvm::Twine &Message);

/// An error that is not about a place in a file (bad arguments, I/O).
llvm::Error plainError(const llvm::Twine &Message);

/// The system's error \p Errno (an errno value) about the file \p Path.
llvm::Error errnoError(llvm::StringRef Path, int Errno);

/// Adds context in front of the message of every FormatError in \p E (for example the method whose
/// body was being decoded); other errors are passed through.
llvm::Error addContext(llvm::Error E, const llvm::Twine &Context);

} // namespace weft

#endif
