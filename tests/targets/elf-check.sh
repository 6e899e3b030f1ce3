#!/usr/bin/env bash
# Fails unless each ELF file needs nothing but glibc (libc, libm, libdl, libpthread, the dynamic
# loader) at symbol versions no newer than MAX (default 2.31, Debian 11's), so that it starts on
# every glibc Linux .NET runs on.
#
#   tests/targets/elf-check.sh [--max 2.31] FILE...
set -euo pipefail
max=2.31
if [[ "${1:-}" == --max ]]; then
  max=$2
  shift 2
fi
(($#)) || { echo "usage: tests/targets/elf-check.sh [--max 2.31] FILE..." >&2; exit 2; }
allowed='^(libc\.so\.6|libm\.so\.6|libdl\.so\.2|libpthread\.so\.0|ld-linux-(x86-64|aarch64)\.so\.[12])$'
# Whether version A (2.28) is newer than B (2.31).
newer() { [[ "$1" != "$2" && $(printf '%s\n%s\n' "$1" "$2" | sort -V | tail -n 1) == "$1" ]]; }

status=0
for file in "$@"; do
  [[ -f "$file" ]] || { echo "$file: no such file" >&2; status=1; continue; }
  needed=$(LC_ALL=C readelf --dynamic --wide "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p')
  [[ -n "$needed" ]] || { echo "$file: no NEEDED entries (not a dynamic ELF file?)" >&2; status=1; }
  for library in $needed; do
    [[ "$library" =~ $allowed ]] || { echo "$file: needs $library (only glibc is allowed)" >&2; status=1; }
  done
  # The version needs: "File: libc.so.6  Cnt: 5" then "Name: GLIBC_2.14  Flags: ..." lines.
  versions=$(LC_ALL=C readelf --version-info --wide "$file" |
    awk '/File: / { lib = $0; sub(/.*File: /, "", lib); sub(/ .*/, "", lib) }
         /Name: / && lib != "" { name = $0; sub(/.*Name: /, "", name); sub(/ .*/, "", name); print lib, name }')
  newest=0
  while read -r library version; do
    [[ -n "$library" ]] || continue
    case "$version" in
      GLIBC_PRIVATE) echo "$file: uses $library's GLIBC_PRIVATE symbols" >&2; status=1 ;;
      GLIBC_[0-9]*)
        number=${version#GLIBC_}
        if newer "$number" "$max"; then
          echo "$file: needs $version of $library (newer than $max):" >&2
          LC_ALL=C readelf --dyn-syms --wide "$file" | awk -v v="@$version" 'index($0, v) { print "  " $8 }' >&2
          status=1
        fi
        newer "$number" "$newest" && newest=$number ;;
      *) echo "$file: needs version $version of $library (only glibc's)" >&2; status=1 ;;
    esac
  done <<<"$versions"
  echo "$file: needs $(echo $needed | tr ' ' ','), GLIBC_$newest at most"
done
exit $status
