//===- support/StringStream.h - A buffered stream into a string -*- C++ -*-===//
//
// LLVM's raw_string_ostream and raw_svector_ostream are unbuffered: every << is a virtual call and
// an append. Text made of many small pieces (a coverage map line: names, numbers, punctuation)
// spends more time in those calls than in the text. This stream gathers the pieces in a buffer on
// the stack and appends them to the string when it fills, when flushed and when destroyed.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_SUPPORT_STRINGSTREAM_H
#define WEFT_SUPPORT_STRINGSTREAM_H

#include "llvm/Support/raw_ostream.h"

#include <string>

namespace weft {

class StringStream final : public llvm::raw_ostream {
public:
  explicit StringStream(std::string &Out) : Out(Out) { SetBuffer(Buffer, sizeof(Buffer)); }
  ~StringStream() override { flush(); }

private:
  void write_impl(const char *Ptr, size_t Size) override { Out.append(Ptr, Size); }
  uint64_t current_pos() const override { return Out.size(); }

  std::string &Out;
  char Buffer[512];
};

} // namespace weft

#endif
