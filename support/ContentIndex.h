//===- support/ContentIndex.h - Heap offsets found by content ---*- C++ -*-===//
//
// The offsets of the entries of a heap (strings, blobs), found by their contents: an
// open-addressing table of (hash, offset) pairs, at most 16 bytes per entry. A map keyed by copies
// of the contents would take several times the heap itself; this reads the contents back from the
// heap through a callback when hashes match.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_SUPPORT_CONTENTINDEX_H
#define WEFT_SUPPORT_CONTENTINDEX_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <vector>

namespace weft {

class ContentIndex {
public:
  /// The contents of the entry at an offset.
  using Reader = llvm::function_ref<llvm::ArrayRef<uint8_t>(uint32_t Offset)>;

  /// The offset of an entry with \p Contents, or 0 if there is none.
  uint32_t find(llvm::ArrayRef<uint8_t> Contents, Reader Read) const;
  /// Adds the entry at \p Offset (not 0) unless one with the same contents is there already (the
  /// first one stays).
  void insert(uint32_t Offset, llvm::ArrayRef<uint8_t> Contents, Reader Read);
  size_t size() const { return Used; }
  /// Makes room for \p Entries in all, so that adding that many grows the table once at most.
  void reserve(size_t Entries);

private:
  struct Slot {
    uint32_t Hash = 0;
    uint32_t Offset = 0; // 0: empty
  };
  static uint32_t hash(llvm::ArrayRef<uint8_t> Contents);
  /// The slot holding \p Contents, or the empty slot where it would go.
  size_t probe(llvm::ArrayRef<uint8_t> Contents, uint32_t Hash, Reader Read) const;
  void grow();
  void rehash(size_t Size);

  std::vector<Slot> Slots; // a power of two in size, at most half full
  size_t Used = 0;
};

} // namespace weft

#endif
