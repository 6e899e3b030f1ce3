//===- support/Allocator.h - Buffers on large pages, memory given back -*- C++ -*-===//
//
// A page fault is dear on some machines (about 10 us on a virtual one), and an output image is
// written page by page: adviseHugePages lets the kernel map such a buffer 2 MiB at a time.
//
// glibc keeps the pages of what is freed for later allocations, in each thread's arena, and
// gives back only a free end of the heap larger than its trim threshold (which rises as large
// buffers are freed). A weave frees its methods' memory batch by batch and then makes the
// module's metadata and image, which come from mappings of their own: releaseFreeMemory gives
// the batches' pages back before that, so that they are not counted twice at the peak.
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

#include <cstddef>
#include <cstdint>

#ifdef __linux__
#include <sys/mman.h>
#endif
#ifdef __GLIBC__
#include <malloc.h>
#endif

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

/// Gives the free pages of every arena back to the system (glibc's malloc_trim; elsewhere
/// nothing). A few hundred system calls: for after a large piece of work, not after each
/// allocation.
inline void releaseFreeMemory() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

} // namespace weft

#endif
