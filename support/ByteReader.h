//===- support/ByteReader.h - Bounds-checked little-endian reader -*- C++ -*-===//
//
// A cursor over a byte range. Every read is checked against the end of the range. The first failed
// read makes the reader "failed": it remembers where and why, and every later read returns zero
// without moving. A parser reads a whole structure and asks once, at the end, whether it went well
// (takeError), which keeps the parsers short and the hot paths free of error plumbing.
//
// Offsets in errors are file offsets: the reader is given the file offset of its first byte.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_SUPPORT_BYTEREADER_H
#define WEFT_SUPPORT_BYTEREADER_H

#include "support/Error.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Endian.h"

#include <cstdint>
#include <cstring>

namespace weft {

class ByteReader {
public:
  ByteReader() = default;
  explicit ByteReader(llvm::ArrayRef<uint8_t> Data, uint64_t FileOffset = 0)
      : Data(Data), Base(FileOffset) {}

  size_t pos() const { return Pos; }
  size_t size() const { return Data.size(); }
  size_t remaining() const { return Data.size() - Pos; }
  bool atEnd() const { return Pos == Data.size(); }
  uint64_t fileOffset() const { return Base + Pos; }
  uint64_t baseOffset() const { return Base; }
  llvm::ArrayRef<uint8_t> data() const { return Data; }
  bool ok() const { return Why == nullptr; }

  /// Records a failure at the current position (the first failure wins).
  void fail(const char *Reason) { failAt(Pos, Reason); }
  void failAt(size_t At, const char *Reason) {
    if (!Why) {
      Why = Reason;
      FailPos = At;
      Pos = Data.size();
    }
  }
  const char *failure() const { return Why; }
  uint64_t failureOffset() const { return Base + FailPos; }

  /// Error::success() if nothing failed, else a FormatError naming \p Structure.
  llvm::Error takeError(const llvm::Twine &Structure) const {
    if (!Why)
      return llvm::Error::success();
    return formatError(Structure, failureOffset(), Why);
  }

  bool has(size_t N) const { return Why == nullptr && N <= Data.size() - Pos; }

  uint8_t u8() {
    if (!has(1))
      return endOfData(), 0;
    return Data[Pos++];
  }
  uint16_t u16() { return fixed<uint16_t>(); }
  uint32_t u32() { return fixed<uint32_t>(); }
  uint64_t u64() { return fixed<uint64_t>(); }
  int8_t i8() { return static_cast<int8_t>(u8()); }
  int16_t i16() { return static_cast<int16_t>(u16()); }
  int32_t i32() { return static_cast<int32_t>(u32()); }
  int64_t i64() { return static_cast<int64_t>(u64()); }
  float f32() {
    uint32_t Bits = u32();
    float F;
    std::memcpy(&F, &Bits, sizeof F);
    return F;
  }
  double f64() {
    uint64_t Bits = u64();
    double D;
    std::memcpy(&D, &Bits, sizeof D);
    return D;
  }

  llvm::ArrayRef<uint8_t> bytes(size_t N) {
    if (!has(N))
      return endOfData(), llvm::ArrayRef<uint8_t>();
    llvm::ArrayRef<uint8_t> R = Data.slice(Pos, N);
    Pos += N;
    return R;
  }
  llvm::StringRef chars(size_t N) {
    llvm::ArrayRef<uint8_t> B = bytes(N);
    return llvm::StringRef(reinterpret_cast<const char *>(B.data()), B.size());
  }
  /// Everything up to the next NUL; the NUL is consumed. Fails if there is none.
  llvm::StringRef cstring();

  /// ECMA-335 II.23.2 compressed unsigned integer (1, 2 or 4 bytes).
  uint32_t compressed();
  /// ECMA-335 II.23.2 compressed signed integer.
  int32_t compressedSigned();
  /// A compressed count that must not exceed the bytes left divided by \p MinElementSize:
  /// a hostile count can never make the caller allocate more than the input justifies.
  uint32_t count(size_t MinElementSize, const char *Reason = "count larger than the data left");

  void skip(size_t N) {
    if (!has(N))
      return endOfData();
    Pos += N;
  }
  void seek(size_t NewPos) {
    if (Why)
      return;
    if (NewPos > Data.size())
      return fail("offset beyond the end of the data");
    Pos = NewPos;
  }
  /// Advances to the next multiple of \p Alignment, counted from the start of the data.
  void align(size_t Alignment) {
    size_t Rem = Pos % Alignment;
    if (Rem)
      skip(Alignment - Rem);
  }

private:
  template <typename T> T fixed() {
    if (!has(sizeof(T)))
      return endOfData(), T(0);
    T V = llvm::support::endian::read<T, llvm::support::little, 1>(Data.data() + Pos);
    Pos += sizeof(T);
    return V;
  }
  void endOfData() { fail("unexpected end of data"); }

  llvm::ArrayRef<uint8_t> Data;
  uint64_t Base = 0;
  size_t Pos = 0;
  size_t FailPos = 0;
  const char *Why = nullptr;
};

/// Decodes a compressed unsigned integer from the front of \p Bytes; returns the number of bytes it
/// took, or 0 if it is malformed or truncated.
unsigned decodeCompressed(llvm::ArrayRef<uint8_t> Bytes, uint32_t &Value);

} // namespace weft

#endif
