//===- support/ContentIndex.cpp -------------------------------------------===//
#include "support/ContentIndex.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>

using namespace llvm;

namespace weft {

uint32_t ContentIndex::hash(ArrayRef<uint8_t> Contents) {
  return uint32_t(xxHash64(toStringRef(Contents)));
}

size_t ContentIndex::probe(ArrayRef<uint8_t> Contents, uint32_t Hash, Reader Read) const {
  size_t Mask = Slots.size() - 1;
  for (size_t I = Hash & Mask;; I = (I + 1) & Mask) {
    const Slot &S = Slots[I];
    if (!S.Offset)
      return I;
    if (S.Hash == Hash) {
      ArrayRef<uint8_t> Other = Read(S.Offset);
      if (Other.size() == Contents.size() && std::equal(Other.begin(), Other.end(), Contents.begin()))
        return I;
    }
  }
}

uint32_t ContentIndex::find(ArrayRef<uint8_t> Contents, Reader Read) const {
  if (Slots.empty())
    return 0;
  return Slots[probe(Contents, hash(Contents), Read)].Offset;
}

void ContentIndex::insert(uint32_t Offset, ArrayRef<uint8_t> Contents, Reader Read) {
  if (2 * (Used + 1) > Slots.size())
    grow();
  uint32_t Hash = hash(Contents);
  Slot &S = Slots[probe(Contents, Hash, Read)];
  if (S.Offset)
    return;
  S = {Hash, Offset};
  ++Used;
}

void ContentIndex::reserve(size_t Entries) {
  size_t Size = 64;
  while (Size < 2 * Entries)
    Size *= 2;
  if (Size > Slots.size())
    rehash(Size);
}

void ContentIndex::grow() { rehash(std::max<size_t>(64, Slots.size() * 2)); }

void ContentIndex::rehash(size_t Size) {
  std::vector<Slot> Old = std::move(Slots);
  Slots.assign(Size, Slot());
  size_t Mask = Slots.size() - 1;
  for (const Slot &S : Old) {
    if (!S.Offset)
      continue;
    size_t I = S.Hash & Mask;
    while (Slots[I].Offset)
      I = (I + 1) & Mask;
    Slots[I] = S;
  }
}

} // namespace weft
