//===- support/GlibcCompat.cpp - Newer glibc symbols for older systems ----===//
//
// The package's Linux executables link g++ 12's libstdc++ statically against glibc 2.31. That
// libstdc++ was built on a newer glibc and calls two of its symbols; they are defined here, in
// the executables, so that the oldest glibc .NET runs on loads them.
//
//===----------------------------------------------------------------------===//
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <sys/random.h>

// Hidden: the host process's own glibc, where it has them, keeps serving everyone else.
#define WEFT_COMPAT extern "C" __attribute__((visibility("hidden")))

// glibc 2.32: whether the process has only one thread, which lets libstdc++ skip atomic
// instructions for reference counts. Never claimed: weft's processes have threads.
WEFT_COMPAT char __libc_single_threaded = 0;

// glibc 2.36: random numbers for std::random_device, from the kernel.
WEFT_COMPAT uint32_t arc4random() {
  uint32_t Value = 0;
  ssize_t Got;
  do
    Got = getrandom(&Value, sizeof Value, 0);
  while (Got < 0 && errno == EINTR);
  if (Got == ssize_t(sizeof Value))
    return Value;
  if (std::FILE *F = std::fopen("/dev/urandom", "rb")) { // a kernel before 3.17
    size_t Read = std::fread(&Value, sizeof Value, 1, F);
    std::fclose(F);
    if (Read == 1)
      return Value;
  }
  return uint32_t(uintptr_t(&Value)); // nothing better left
}
