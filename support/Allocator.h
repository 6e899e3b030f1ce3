//===- support/Allocator.h - Buffers on large pages -------------*- C++ -*-===//
//
// A page fault is dear on some machines (about 10 us on a virtual one), and an output image is
// written page by page: adviseHugePages lets the kernel map such a buffer 2 MiB at a time.
//
// weft leaves glibc's malloc to its defaults: a large buffer comes from a mapping of its own
// until the first one is freed, later ones from the heap, where the next assembly's buffers
// reuse them. Making every large buffer a mapping of its own (M_MMAP_THRESHOLD), so that it went
// back to the system when freed, was measured slower with the same peak: unmapping it from a
// process with several threads interrupts every core to flush its TLB (the framework folder
// woven with entry-exit took 0.51 s that way, 0.44 s with the defaults, at 25 MiB either way).
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_SUPPORT_ALLOCATOR_H
#define WEFT_SUPPORT_ALLOCATOR_H

#ifdef __linux__
#include <sys/mman.h>
#endif

#include <cstddef>
#include <cstdint>

namespace weft {

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
