#!/usr/bin/env bash
# What the linux-x64 build for the package needs, made once in TOOLCHAINS/linux-x64: a glibc 2.31
# sysroot from Debian 11's packages (with its static OpenSSL 1.1) and LLVM 14's Support library
# built against it. Prints the CMake arguments for weft's build.
#
# zlib is Debian 12's static library (1.2.13, which calls nothing glibc 2.31 lacks): the version
# every other build of weft links, so that the runtimes woven modules carry, which weft
# deflates, are the same bytes whichever platform's weft wove them.
#
#   toolchain/linux-x64.sh TOOLCHAINS
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root="${1:?usage: toolchain/linux-x64.sh TOOLCHAINS}/linux-x64"
sysroot="$root/sysroot"
if [[ ! -f "$sysroot/.complete" ]]; then
  echo "== making the glibc 2.31 sysroot (Debian 11) in $sysroot" >&2
  "$here/debs.sh" bullseye amd64 "$sysroot" libc6 libc6-dev linux-libc-dev libgcc-10-dev \
    libssl1.1 libssl-dev >&2
  "$here/debs.sh" bookworm amd64 "$sysroot" zlib1g-dev >&2
  touch "$sysroot/.complete"
fi
WEFT_SYSROOT="$sysroot" "$here/llvm-support.sh" "$here/linux-x64.cmake" "$root/llvm" >&2
echo "-DWEFT_SYSROOT=$sysroot -DLLVM_DIR=$root/llvm/build/lib/cmake/llvm -DWEFT_PORTABLE=ON"
