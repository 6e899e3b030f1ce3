#!/usr/bin/env bash
# What the win-x64 build needs beyond Debian's MinGW-w64 packages (./dev setup installs them:
# the compiler, zlib and libgcrypt for MinGW, wine64 for the tests): LLVM 14's Support library
# built with MinGW-w64 once, in TOOLCHAINS/win-x64. Prints the CMake arguments for weft's build.
#
#   toolchain/win-x64.sh TOOLCHAINS
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root="${1:?usage: toolchain/win-x64.sh TOOLCHAINS}/win-x64"
"$here/llvm-support.sh" "$here/win-x64.cmake" "$root/llvm" -DLLVM_HOST_TRIPLE=x86_64-w64-mingw32 >&2
echo "-DLLVM_DIR=$root/llvm/build/lib/cmake/llvm -DWEFT_PORTABLE=ON"
