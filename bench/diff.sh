#!/usr/bin/env bash
# `weft diff` of System.Private.CoreLib.dll against its entry-exit weave (the empty probes of
# tests/probes on every method), as whole processes (weft-measure: least and median wall time of
# 5, peak RSS): the unified diff written to a file, --stat, --json, and a --baseline check; beside
# `weft dump` of CoreLib alone, which makes one of the two texts the diff makes.
#
#   bench/diff.sh [BUILD_DIR]      (default: build)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$(cd "${1:-$here/../build}" && pwd)"
for tool in cli/weft bench/weft-measure; do
  [[ -x "$build/$tool" ]] || { echo "build weft first (missing $build/$tool)" >&2; exit 1; }
done
weft="$build/cli/weft"
measure="$build/bench/weft-measure"
probes="$build/probes/bin/Probes/debug/Probes.dll"
[[ -f "$probes" ]] || dotnet build "$here/../tests/probes/Probes.csproj" \
  --artifacts-path "$build/probes" -nologo -v:q >/dev/null

fx="$(dotnet --list-runtimes | awk '/^Microsoft.NETCore.App /{v=$2; d=$3} END{gsub(/[\[\]]/,"",d); print d "/" v}')"
corelib="$fx/System.Private.CoreLib.dll"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
woven="$out/System.Private.CoreLib.dll"
"$weft" weave "$corelib" -o "$woven" -q \
  --pass "entry-exit:probe-assembly=$probes,probe-type=Weft.Probes.Empty" 2>/dev/null
"$weft" diff --woven "$woven" --baseline "$out/baseline.json" >/dev/null

# diff exits 1 when the files differ, as they do here: a run counts as failed on any other status.
differ() { printf '%s' "\"$weft\" diff --woven \"$woven\" $1 > \"$out/diff.out\"; test \$? -eq 1"; }
echo "machine: $(nproc) cores, $(uname -m); $(dotnet --list-runtimes | grep NETCore.App | tail -1)"
echo "System.Private.CoreLib.dll ($(( $(stat -c %s "$corelib") / 1024 )) KiB) against its entry-exit weave"
{ "$weft" diff --woven "$woven" --stat || true; } | tail -2 | sed "s/^/ /"
"$weft" diff --woven "$woven" > "$out/text.diff" || true
echo "  the unified diff: $(( $(stat -c %s "$out/text.diff") / 1024 / 1024 )) MiB, $(wc -l < "$out/text.diff") lines"
"$measure" --label "weft dump CoreLib (one text)" -- sh -c "\"$weft\" dump \"$corelib\" -o \"$out/corelib.il\"" \
  ';;' --label "weft diff --woven" -- sh -c "$(differ '')" \
  ';;' --label "weft diff --woven --stat" -- sh -c "$(differ --stat)" \
  ';;' --label "weft diff --woven --json" -- sh -c "$(differ --json)" \
  ';;' --label "weft diff --woven --baseline (check)" -- \
    "$weft" diff --woven "$woven" --baseline "$out/baseline.json"
