//===- support/Error.cpp --------------------------------------------------===//
#include "support/Error.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace weft {

char FormatError::ID = 0;

void FormatError::log(raw_ostream &OS) const {
  OS << Structure << " at offset " << format_hex(Offset, 2) << ": " << Message;
}

std::error_code FormatError::convertToErrorCode() const {
  return std::make_error_code(std::errc::illegal_byte_sequence);
}

Error formatError(const Twine &Structure, uint64_t Offset, const Twine &Message) {
  return make_error<FormatError>(Structure.str(), Offset, Message.str());
}

Error plainError(const Twine &Message) {
  return make_error<StringError>(Message, inconvertibleErrorCode());
}

Error errnoError(StringRef Path, int Errno) {
  return createFileError(Path, errorCodeToError(std::error_code(Errno, std::generic_category())));
}

Error addContext(Error E, const Twine &Context) {
  return handleErrors(std::move(E), [&](std::unique_ptr<FormatError> F) -> Error {
    return formatError(Context + ": " + F->structure(), F->offset(), F->what());
  });
}

} // namespace weft
