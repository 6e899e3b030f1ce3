#!/usr/bin/env bash
# What the linux-arm64 build needs, made once in TOOLCHAINS/linux-arm64: Debian 12's arm64
# packages of LLVM 14 (its static Support library and CMake package), zlib, OpenSSL 3 and
# ncurses' terminfo, which LLVM Support calls. The compiler and the C library are Debian's
# cross toolchain (crossbuild-essential-arm64, which ./dev setup installs). Prints the CMake
# arguments for weft's build.
#
#   toolchain/linux-arm64.sh TOOLCHAINS
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root="${1:?usage: toolchain/linux-arm64.sh TOOLCHAINS}/linux-arm64"
sysroot="$root/sysroot"
multiarch=aarch64-linux-gnu
command -v $multiarch-g++ >/dev/null ||
  { echo "linux-arm64.sh: $multiarch-g++ is missing (./dev setup installs it)" >&2; exit 1; }
if [[ ! -f "$sysroot/.complete" ]]; then
  echo "== unpacking Debian 12's arm64 LLVM 14, zlib, OpenSSL and terminfo into $sysroot" >&2
  "$here/debs.sh" bookworm arm64 "$sysroot" llvm-14-dev zlib1g-dev libssl-dev libncurses-dev \
    libgtest-dev >&2
  # LLVM's CMake package names Z3 by its absolute path on Debian's machine. Z3 serves only
  # LLVM's constraint solver, which weft never calls: Support needs no more than its own
  # archive, zlib and terminfo. The package also checks that the files of every LLVM library
  # are there, shared ones from packages weft does not unpack (libllvm14, the linker plugins):
  # the checks go, as Debian's package already leaves some out.
  cmakedir="$sysroot/usr/lib/llvm-14/lib/cmake/llvm"
  sed -i "s|/usr/lib/$multiarch/libz3.so;||" "$cmakedir/LLVMExports.cmake"
  sed -i 's|^list(APPEND _cmake_import_check_files_for_|#&|' "$cmakedir"/LLVMExports-*.cmake
  touch "$sysroot/.complete"
fi
echo "-DWEFT_SYSROOT=$sysroot -DLLVM_DIR=$sysroot/usr/lib/llvm-14/lib/cmake/llvm" \
  "-DTerminfo_LIBRARIES=$sysroot/usr/lib/$multiarch/libtinfo.a -DWEFT_PORTABLE=ON"
