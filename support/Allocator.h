//===- support/Allocator.h - Process-wide allocator settings ----*- C++ -*-===//
//
// weft allocates a few large buffers per assembly (the output image, heap copies) and many small
// ones. glibc's malloc serves a large buffer from its own mapping only until the first such buffer
// is freed; it then raises its threshold and keeps later ones in the heap, where they stay after
// they are freed. Tools that handle many assemblies in one process call tuneAllocator() first so
// that freed images go back to the system.
//
// A page fault is dear on some machines (about 10 us on a virtual one), and an output image is
// written page by page: adviseHugePages lets the kernel map such a buffer 2 MiB at a time.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_SUPPORT_ALLOCATOR_H
#define WEFT_SUPPORT_ALLOCATOR_H

#ifdef __GLIBC__
#include <malloc.h>
#endif
#ifdef __linux__
#include <sys/mman.h>
#endif

#include <cstddef>
#include <cstdint>

namespace weft {

inline void tuneAllocator() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
}

/// Asks for 2 MiB pages (transparent huge pages) for the whole 2 MiB pages inside the buffer
/// [\p Begin, +\p Bytes), which must be allocated and not yet written. Where the kernel gives
/// them, one fault maps 2 MiB instead of 4 KiB; weft calls this only for memory it will fill.
inline void adviseHugePages(void *Begin, size_t Bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr uintptr_t Huge = uintptr_t(2) << 20;
  uintptr_t First = (uintptr_t(Begin) + Huge - 1) & ~(Huge - 1);
  uintptr_t End = (uintptr_t(Begin) + Bytes) & ~(Huge - 1);
  if (End > First)
    madvise(reinterpret_cast<void *>(First), End - First, MADV_HUGEPAGE); // advice only
#else
  (void)Begin, (void)Bytes;
#endif
}

} // namespace weft

#endif
