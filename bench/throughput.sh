#!/usr/bin/env bash
# The weave's throughput beside the round trip and Mono.Cecil, on the same inputs in one run:
#   whole processes (weft-measure: least and median wall time of 5, peak RSS)
#     - `weft weave IN -o OUT` without passes (the CLI's round trip: unchanged bodies copied),
#     - `weft weave` with entry-exit (the empty probes of tests/probes) and with coverage,
#     - the Cecil peer inserting the same two probe calls, one weave per process;
#   in one process (best of 5, each step timed):
#     - weft-roundtrip-bench (every body decoded and encoded again),
#     - weft-weave-bench with entry-exit, coverage, trace and single-ret, which also print what one
#       runOnMethod call costs (median, 90th and 99th percentile) - what the runtime profiler will
#       pay per method at JIT time;
#   the whole Microsoft.NETCore.App folder in one `weft weave` run without passes and with
#   entry-exit, and its round trip in process (weft-roundtrip-bench --framework).
# Inputs: System.Private.CoreLib.dll and the newest SDK's Roslyn Microsoft.CodeAnalysis.CSharp.dll.
#
#   bench/throughput.sh [BUILD_DIR]      (default: build)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$(cd "${1:-$here/../build}" && pwd)"
for tool in cli/weft bench/weft-measure bench/weft-weave-bench bench/weft-roundtrip-bench; do
  [[ -x "$build/$tool" ]] || { echo "build weft first (missing $build/$tool)" >&2; exit 1; }
done
weft="$build/cli/weft"
measure="$build/bench/weft-measure"
peers="$build/bench-peers"
dotnet build "$here/peers/Peers/Peers.csproj" -c Release --artifacts-path "$peers" -nologo -v:q \
  >/dev/null
peer_dll="$peers/bin/Peers/release/Peers.dll"
probes="$build/probes/bin/Probes/debug/Probes.dll"
[[ -f "$probes" ]] || dotnet build "$here/../tests/probes/Probes.csproj" \
  --artifacts-path "$build/probes" -nologo -v:q >/dev/null

fx="$(dotnet --list-runtimes | awk '/^Microsoft.NETCore.App /{v=$2; d=$3} END{gsub(/[\[\]]/,"",d); print d "/" v}')"
sdk="$(dotnet --list-sdks | tail -1 | awk '{v=$1; d=$2; gsub(/[\[\]]/,"",d); print d "/" v}')"
corelib="$fx/System.Private.CoreLib.dll"
csharp="$sdk/Roslyn/bincore/Microsoft.CodeAnalysis.CSharp.dll"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
entry_exit="entry-exit:probe-assembly=$probes,probe-type=Weft.Probes.Empty"

echo "machine: $(nproc) cores, $(uname -m); $(dotnet --list-runtimes | grep NETCore.App | tail -1)"
for input in "$corelib" "$csharp"; do
  name="$(basename "$input")"
  echo "$name ($(( $(stat -c %s "$input") / 1024 )) KiB)"
  "$measure" --label "weft weave (round trip)" -- "$weft" weave "$input" -o "$out/rt.dll"
  "$measure" --label "weft weave --pass entry-exit" -- \
    "$weft" weave "$input" -o "$out/ee.dll" --pass "$entry_exit"
  "$measure" --label "weft weave --pass coverage" -- \
    "$weft" weave "$input" -o "$out/cov.dll" --pass coverage
  "$measure" --repeat 3 --label "Cecil entry-exit (one weave)" -- \
    dotnet "$peer_dll" cecil-entry-exit --probe "$probes" --repeat 1 "$input"
  "$build/bench/weft-roundtrip-bench" "$input" --repeat 5 | sed 's/^/  /'
  # A pass that cannot weave the input says FAILED on its line and the others still run (trace
  # loads its runtime through DeflateStream, which the core library cannot reference).
  for pass in entry-exit coverage trace single-ret; do
    "$build/bench/weft-weave-bench" --file "$input" --probe "$probes" --pass "$pass" --repeat 5 \
      2>/dev/null | sed 's/^/  /' || true
  done
done
echo "Microsoft.NETCore.App folder ($(ls "$fx"/*.dll | wc -l) files), one weft weave run"
"$measure" --repeat 3 --label "weft weave DIR --out-dir (round trip)" -- \
  "$weft" weave "$fx" --out-dir "$out/fx-rt" --quiet
"$build/bench/weft-roundtrip-bench" --framework --repeat 3 | sed 's/^/  /'
"$measure" --repeat 3 --label "weft weave DIR --out-dir --pass entry-exit" -- \
  "$weft" weave "$fx" --out-dir "$out/fx-ee" --quiet --pass "$entry_exit"
