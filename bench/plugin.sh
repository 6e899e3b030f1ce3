#!/usr/bin/env bash
# What a pass pays for crossing the C ABI, weaving the installed System.Private.CoreLib, each
# five times, one after the other: the median wall time of each, its ratio to the built-in
# pass's, and how many methods the outputs differ in (weft diff).
# - single-ret against the same work in C (bench/plugins/SingleRet.c: MakeSingleExit for each
#   method);
# - entry-exit with probes that take the method's token and cannot throw (bench/plugins/Probes)
#   against the same work in C (bench/plugins/EntryExit.c) and in C# through the SDK, compiled
#   by NativeAOT (bench/plugins/EntryExitCs, published by this script).
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

# The median of five runs of the command, in seconds (stops the script if it fails).
median() {
  local times=() i
  for i in 1 2 3 4 5; do
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null 2>"$out/err" || { echo "bench/plugin.sh: failed: $*" >&2; cat "$out/err" >&2; exit 1; }
    end=$(date +%s.%N)
    times+=("$(echo "$end - $start" | bc)")
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n 3p
}

# The same bodies: the record of the weave (the pass's name) differs, so methods are compared.
differ() { "$weft" diff "$1" "$2" --stat | grep -o '[0-9]* methods differ' || true; }
row() { printf '  %-30s %6.3f s   %.2fx, %s\n' "$1" "$2" "$(echo "$2 / $3" | bc -l)" "$4"; }

builtin=$(median "$weft" weave "$corelib" -o "$out/builtin.dll" --pass single-ret)
plugged=$(median "$weft" weave "$corelib" -o "$out/plugin.dll" --load "$plugin" --pass c-single-ret)
printf 'weave %s, median of 5:\n' "$(basename "$corelib")"
printf '  %-30s %6.3f s\n' "single-ret (built-in)" "$builtin"
row "c-single-ret (C ABI plugin)" "$plugged" "$builtin" "$(differ "$out/builtin.dll" "$out/plugin.dll")"

# entry-exit: the probes, and the C# pass published with NativeAOT.
src=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/plugins
dotnet build "$src/Probes/Probes.csproj" -c Release -nologo -v:q --artifacts-path "$out/artifacts" \
  -o "$out/probes" >/dev/null
dotnet publish "$src/EntryExitCs/EntryExitCs.csproj" -r linux-x64 -c Release -nologo -v:q \
  --artifacts-path "$out/artifacts" -o "$out/cs" >/dev/null
probes="probe-assembly=$out/probes/Bench.Probes.dll,probe-type=Bench.Probes"
ee=$(median "$weft" weave "$corelib" -o "$out/ee.dll" --pass "entry-exit:$probes,exception=")
c=$(median "$weft" weave "$corelib" -o "$out/ee-c.dll" --load "$build/bench/weft-bench-entry-exit.so" \
  --pass "c-entry-exit:$probes")
cs=$(median "$weft" weave "$corelib" -o "$out/ee-cs.dll" --load "$out/cs/EntryExitCs.so" \
  --pass "cs-entry-exit:$probes")
printf '  %-30s %6.3f s\n' "entry-exit (built-in)" "$ee"
row "c-entry-exit (C ABI plugin)" "$c" "$ee" "$(differ "$out/ee.dll" "$out/ee-c.dll")"
row "cs-entry-exit (C#, NativeAOT)" "$cs" "$ee" "$(differ "$out/ee.dll" "$out/ee-cs.dll")"
