//===- support/Deflate.cpp - Raw deflate streams --------------------------===//
#include "support/Deflate.h"

#include "support/Error.h"

#include <zlib.h>

using namespace llvm;

namespace weft {

Expected<std::vector<uint8_t>> inflateRaw(ArrayRef<uint8_t> Compressed, uint64_t Size,
                                          uint64_t MaxSize, const Twine &Structure,
                                          uint64_t FileOffset) {
  if (Size > MaxSize)
    return formatError(Structure, FileOffset,
                       "states " + Twine(Size) + " bytes uncompressed, more than the " +
                           Twine(MaxSize) + " allowed");
  std::vector<uint8_t> Out(Size);
  z_stream Z{};
  if (inflateInit2(&Z, -MAX_WBITS) != Z_OK)
    return formatError(Structure, FileOffset, "cannot start inflating");
  Z.next_in = const_cast<Bytef *>(Compressed.data());
  Z.avail_in = uInt(Compressed.size());
  Z.next_out = Out.data();
  Z.avail_out = uInt(Out.size());
  int R = inflate(&Z, Z_FINISH);
  uint64_t Produced = Z.total_out;
  inflateEnd(&Z);
  if (R != Z_STREAM_END || Produced != Size)
    return formatError(Structure, FileOffset,
                       R == Z_DATA_ERROR ? Twine("is not a valid deflate stream")
                       : Produced != Size
                           ? "inflates to a size other than the " + Twine(Size) + " bytes stated"
                           : Twine("is cut short"));
  return std::move(Out);
}

std::vector<uint8_t> deflateRaw(ArrayRef<uint8_t> Data) {
  z_stream Z{};
  deflateInit2(&Z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::vector<uint8_t> Out(deflateBound(&Z, uLong(Data.size())));
  Z.next_in = const_cast<Bytef *>(Data.data());
  Z.avail_in = uInt(Data.size());
  Z.next_out = Out.data();
  Z.avail_out = uInt(Out.size());
  deflate(&Z, Z_FINISH);
  Out.resize(Z.total_out);
  deflateEnd(&Z);
  return Out;
}

} // namespace weft
