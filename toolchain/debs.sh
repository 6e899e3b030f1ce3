#!/usr/bin/env bash
# Unpacks Debian packages of one release and architecture into a folder, without apt and
# without root: the sysroots weft's portable and cross builds compile and link against.
#
#   toolchain/debs.sh SUITE ARCH DEST PACKAGE...
#
# SUITE is a Debian release (bullseye, bookworm), ARCH a Debian architecture (amd64, arm64).
# Each package is looked up in the release's index, downloaded once into DEST.debs/, checked
# against the index's SHA-256 and unpacked into DEST. Absolute symbolic links inside DEST are
# made relative, so that DEST works wherever it is. The mirror is $WEFT_DEBIAN_MIRROR
# (default http://deb.debian.org/debian).
set -euo pipefail
suite=${1:?usage: toolchain/debs.sh SUITE ARCH DEST PACKAGE...}
arch=${2:?usage: toolchain/debs.sh SUITE ARCH DEST PACKAGE...}
dest=${3:?usage: toolchain/debs.sh SUITE ARCH DEST PACKAGE...}
shift 3
mirror=${WEFT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache="$dest.debs"
mkdir -p "$dest" "$cache"
index="$cache/Packages-$suite-$arch"
if [[ ! -s "$index" ]]; then
  curl -fsSL "$mirror/dists/$suite/main/binary-$arch/Packages.xz" | xz -d >"$index.part"
  mv "$index.part" "$index"
fi

for package in "$@"; do
  # The package's paragraph: its file and checksum.
  read -r file sum < <(awk -v p="$package" '
    /^Package: / { name = $2; file = ""; sum = "" }
    /^Filename: / { file = $2 }
    /^SHA256: / { sum = $2 }
    /^$/ { if (name == p && file != "") { print file, sum; exit } }
    END { if (name == p && file != "") print file, sum }' "$index") ||
    true
  if [[ -z "${file:-}" ]]; then
    echo "debs.sh: $package is not in Debian $suite for $arch ($index)" >&2
    exit 1
  fi
  deb="$cache/$(basename "$file")"
  if [[ ! -s "$deb" ]]; then
    curl -fsSL -o "$deb.part" "$mirror/$file"
    if [[ $(sha256sum "$deb.part" | cut -d' ' -f1) != "$sum" ]]; then
      echo "debs.sh: $mirror/$file does not match its SHA-256 in the index" >&2
      rm -f "$deb.part"
      exit 1
    fi
    mv "$deb.part" "$deb"
  fi
  dpkg-deb -x "$deb" "$dest"
  unset file sum
done

# Absolute links (/lib/x86_64-linux-gnu/libz.so.1.2.11, say) point into DEST instead.
root=$(cd "$dest" && pwd)
find "$root" -type l -lname '/*' -print0 | while IFS= read -r -d '' link; do
  target=$(readlink "$link")
  ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$root$target")" "$link"
done
