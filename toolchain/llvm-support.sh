#!/usr/bin/env bash
# Builds LLVM 14's Support library (and Demangle, which it needs) from Debian's source package
# llvm-toolchain-14 with a CMake toolchain file: for the targets where Debian has no LLVM 14 to
# link (glibc 2.31, MinGW-w64). The build tree is what weft's build finds with
# -DLLVM_DIR=DEST/build/lib/cmake/llvm; it is made once and kept.
#
#   toolchain/llvm-support.sh TOOLCHAIN_FILE DEST [CMAKE_ARGUMENT...]
#
# The source is downloaded once into $WEFT_LLVM_SOURCE (default DEST/../llvm-source), checked
# against the SHA-256 that Debian's source index gives, and only its llvm/ and cmake/ folders
# are unpacked.
set -euo pipefail
toolchain=$(realpath "${1:?usage: toolchain/llvm-support.sh TOOLCHAIN_FILE DEST [CMAKE_ARGUMENT...]}")
dest=${2:?usage: toolchain/llvm-support.sh TOOLCHAIN_FILE DEST [CMAKE_ARGUMENT...]}
shift 2
mirror=${WEFT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
version=14.0.6
tarball=llvm-toolchain-14_$version.orig.tar.xz
sha256=d9bce5f42381d781e273c724db1ab0acd66259bf2782b79891664dbf1953d22c
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
source_root=${WEFT_LLVM_SOURCE:-$(dirname "$dest")/llvm-source}
src="$source_root/llvm-toolchain-14_$version"

if [[ -f "$dest/build/lib/libLLVMSupport.a" || -f "$dest/build/lib/LLVMSupport.lib" ]]; then
  exit 0
fi
if [[ ! -f "$src/llvm/CMakeLists.txt" ]]; then
  mkdir -p "$source_root"
  if [[ ! -s "$source_root/$tarball" ]]; then
    echo "== downloading LLVM $version's source ($mirror, Debian's llvm-toolchain-14)"
    curl -fsSL -o "$source_root/$tarball.part" "$mirror/pool/main/l/llvm-toolchain-14/$tarball"
    if [[ $(sha256sum "$source_root/$tarball.part" | cut -d' ' -f1) != "$sha256" ]]; then
      echo "llvm-support.sh: $tarball does not match Debian's SHA-256" >&2
      rm -f "$source_root/$tarball.part"
      exit 1
    fi
    mv "$source_root/$tarball.part" "$source_root/$tarball"
  fi
  echo "== unpacking llvm/ and cmake/ of $tarball"
  tar -xJf "$source_root/$tarball" -C "$source_root" --wildcards '*/llvm/*' '*/cmake/*' \
    --exclude='*/llvm/test/*' --exclude='*/llvm/unittests/*' --exclude='*/llvm/docs/*'
fi

echo "== building LLVM Support $version into $dest/build ($(basename "$toolchain"))"
cmake -S "$src/llvm" -B "$dest/build" -G "Unix Makefiles" \
  -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DCMAKE_BUILD_TYPE=Release \
  -DLLVM_TARGETS_TO_BUILD= -DLLVM_ENABLE_PROJECTS= -DLLVM_ENABLE_RUNTIMES= \
  -DLLVM_ENABLE_TERMINFO=OFF -DLLVM_ENABLE_ZLIB=OFF -DLLVM_ENABLE_LIBXML2=OFF \
  -DLLVM_ENABLE_LIBEDIT=OFF -DLLVM_ENABLE_LIBPFM=OFF -DLLVM_ENABLE_Z3_SOLVER=OFF \
  -DLLVM_ENABLE_BINDINGS=OFF -DLLVM_ENABLE_OCAMLDOC=OFF -DLLVM_INCLUDE_TESTS=OFF \
  -DLLVM_INCLUDE_BENCHMARKS=OFF -DLLVM_INCLUDE_EXAMPLES=OFF -DLLVM_INCLUDE_DOCS=OFF \
  -DLLVM_INCLUDE_TOOLS=OFF -DLLVM_INCLUDE_UTILS=OFF -DLLVM_BUILD_TOOLS=OFF \
  -DLLVM_ENABLE_RTTI=ON -DLLVM_ENABLE_PIC=ON -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
  "$@" >"$dest/configure.log" 2>&1 || { tail -n 40 "$dest/configure.log" >&2; exit 1; }
cmake --build "$dest/build" --target LLVMSupport LLVMDemangle -j"$(nproc)" >"$dest/build.log" 2>&1 ||
  { tail -n 40 "$dest/build.log" >&2; exit 1; }
