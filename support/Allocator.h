//===- support/Allocator.h - Process-wide allocator settings ----*- C++ -*-===//
//
// weft allocates a few large buffers per assembly (the output image, heap copies) and many small
// ones. glibc's malloc serves a large buffer from its own mapping only until the first such buffer
// is freed; it then raises its threshold and keeps later ones in the heap, where they stay after
// they are freed. Tools that handle many assemblies in one process call tuneAllocator() first so
// that freed images go back to the system.
//
//===----------------------------------------------------------------------===//
#ifndef WEFT_SUPPORT_ALLOCATOR_H
#define WEFT_SUPPORT_ALLOCATOR_H

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace weft {

inline void tuneAllocator() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
}

} // namespace weft

#endif
