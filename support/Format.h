//===- support/Format.h - Small formatting helpers --------------*- C++ -*-===//
#ifndef WEFT_SUPPORT_FORMAT_H
#define WEFT_SUPPORT_FORMAT_H

#include <cstdint>
#include <string>

namespace weft {

/// Hexadecimal digits of \p V, at least \p Width of them (zero-padded), without a prefix.
/// (llvm::utohexstr pads 0 to Width + 1 digits.)
inline std::string hexstr(uint64_t V, bool LowerCase = false, unsigned Width = 0) {
  const char *Digits = LowerCase ? "0123456789abcdef" : "0123456789ABCDEF";
  char Buf[17];
  char *P = Buf + sizeof Buf;
  unsigned N = 0;
  do {
    *--P = Digits[V & 15];
    V >>= 4;
    ++N;
  } while (V);
  std::string S(P, Buf + sizeof Buf);
  if (N < Width)
    S.insert(0, Width - N, '0');
  return S;
}

/// "0x" and the lower-case hexadecimal digits of \p V, at least \p Width of them: how offsets and
/// values appear in messages.
inline std::string hex(uint64_t V, unsigned Width = 0) { return "0x" + hexstr(V, true, Width); }

} // namespace weft

#endif
