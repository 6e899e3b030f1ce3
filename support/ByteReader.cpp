//===- support/ByteReader.cpp ---------------------------------------------===//
#include "support/ByteReader.h"

#include <cstring>

using namespace llvm;

namespace weft {

unsigned decodeCompressed(ArrayRef<uint8_t> Bytes, uint32_t &Value) {
  if (Bytes.empty())
    return 0;
  uint8_t B0 = Bytes[0];
  if ((B0 & 0x80) == 0) {
    Value = B0;
    return 1;
  }
  if ((B0 & 0xC0) == 0x80) {
    if (Bytes.size() < 2)
      return 0;
    Value = (uint32_t(B0 & 0x3F) << 8) | Bytes[1];
    return 2;
  }
  if ((B0 & 0xE0) == 0xC0) {
    if (Bytes.size() < 4)
      return 0;
    Value = (uint32_t(B0 & 0x1F) << 24) | (uint32_t(Bytes[1]) << 16) | (uint32_t(Bytes[2]) << 8) |
            Bytes[3];
    return 4;
  }
  return 0;
}

StringRef ByteReader::cstring() {
  if (Why)
    return {};
  if (Pos >= Data.size()) { // also keeps a null Data away from memchr
    fail("string is not NUL-terminated");
    return {};
  }
  const uint8_t *Start = Data.data() + Pos;
  const void *Nul = std::memchr(Start, 0, Data.size() - Pos);
  if (!Nul) {
    fail("string is not NUL-terminated");
    return {};
  }
  size_t Len = static_cast<const uint8_t *>(Nul) - Start;
  Pos += Len + 1;
  return StringRef(reinterpret_cast<const char *>(Start), Len);
}

uint32_t ByteReader::compressed() {
  if (Why)
    return 0;
  uint32_t V = 0;
  unsigned N = decodeCompressed(Data.drop_front(Pos), V);
  if (N == 0) {
    if (Pos < Data.size() && (Data[Pos] & 0xE0) == 0xE0)
      fail("malformed compressed integer");
    else
      fail("unexpected end of data");
    return 0;
  }
  Pos += N;
  return V;
}

int32_t ByteReader::compressedSigned() {
  size_t Start = Pos;
  uint32_t Raw = compressed();
  if (Why)
    return 0;
  // The sign bit is rotated into bit 0; the width of the encoding says how many bits there are.
  unsigned Bits = (Pos - Start == 1) ? 7 : (Pos - Start == 2) ? 14 : 29;
  uint32_t Magnitude = Raw >> 1;
  if (Raw & 1)
    return static_cast<int32_t>(Magnitude | (~0u << (Bits - 1)));
  return static_cast<int32_t>(Magnitude);
}

uint32_t ByteReader::count(size_t MinElementSize, const char *Reason) {
  size_t At = Pos;
  uint32_t N = compressed();
  if (Why)
    return 0;
  if (MinElementSize && N > remaining() / MinElementSize) {
    failAt(At, Reason);
    return 0;
  }
  return N;
}

} // namespace weft
