#!/usr/bin/env bash
# What a pass pays for crossing the C ABI: the built-in single-ret against the same work done by a
# C plugin through the ABI (bench/plugins/SingleRet.c: MakeSingleExit for each method), weaving
# the installed System.Private.CoreLib, each five times, one after the other; the median wall
# time of each, their ratio, and how many methods the two outputs differ in (weft diff).
#
#   bench/plugin.sh BUILD_DIR
set -euo pipefail
build=$(cd "${1:?usage: bench/plugin.sh BUILD_DIR}" && pwd)
weft=$build/cli/weft
plugin=$build/bench/weft-bench-single-ret.so
corelib=$(dirname "$(realpath "$(command -v dotnet)")")
corelib=$(ls -d "$corelib"/shared/Microsoft.NETCore.App/*/ | sort -V | tail -n 1)System.Private.CoreLib.dll
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# The median of five runs of the command, in seconds.
median() {
  local times=() i
  for i in 1 2 3 4 5; do
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    end=$(date +%s.%N)
    times+=("$(echo "$end - $start" | bc)")
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n 3p
}

builtin=$(median "$weft" weave "$corelib" -o "$out/builtin.dll" --pass single-ret)
plugged=$(median "$weft" weave "$corelib" -o "$out/plugin.dll" --load "$plugin" --pass c-single-ret)
# The two differ in the record of the weave (the pass's name) only: the method bodies are compared.
same=$("$weft" diff "$out/builtin.dll" "$out/plugin.dll" --stat | grep -o '[0-9]* methods differ' || true)
printf 'weave %s, median of 5:\n' "$(basename "$corelib")"
printf '  single-ret (built-in)        %6.3f s\n' "$builtin"
printf '  c-single-ret (C ABI plugin)  %6.3f s   %.2fx, %s\n' "$plugged" \
  "$(echo "$plugged / $builtin" | bc -l)" "$same"
