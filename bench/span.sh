#!/usr/bin/env bash
# What a span costs (bench/span): Hot.Work, a small method (a 32-step loop), unwoven and woven
# with `span`, with nobody listening; and woven with a listener recording every span, beside the
# same work written by hand in `using var a = source.StartActivity(...)` (the floor: the Activity
# itself). Each program runs in turn, alternating, best of N runs (each the best of five rounds).
#
#   bench/span.sh [BUILD_DIR]    (WEFT_BENCH_RUNS, default 5; WEFT_BENCH_CALLS, default 2000000)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$(cd "${1:-$here/../build}" && pwd)"
weft="$build/cli/weft"
[[ -x "$weft" ]] || { echo "build weft first (missing $weft)" >&2; exit 1; }
runs="${WEFT_BENCH_RUNS:-5}"
calls="${WEFT_BENCH_CALLS:-2000000}"
work="$build/bench-span"
rm -rf "$work"
dotnet build "$here/span/SpanBench.csproj" -c Release --artifacts-path "$work/build" -nologo -v:q >/dev/null
plain="$work/build/bin/SpanBench/release"
cp -r "$plain" "$work/woven"
echo '{"version": 1, "rules": [{"match": {"type": "Hot", "method": "Work"}, "passes": ["span"]}]}' \
  >"$work/spec.json"
"$weft" weave "$plain/SpanBench.dll" -o "$work/woven/SpanBench.dll" --spec "$work/spec.json" >/dev/null
# The same without the code attributes (option code: false): the span alone, as by hand.
cp -r "$plain" "$work/bare"
echo '{"version": 1, "rules": [{"match": {"type": "Hot", "method": "Work"},
  "passes": [{"name": "span", "options": {"code": false}}]}]}' >"$work/bare.json"
"$weft" weave "$plain/SpanBench.dll" -o "$work/bare/SpanBench.dll" --spec "$work/bare.json" >/dev/null
best() { sort -g | head -1; }
for ((i = 0; i < runs; i++)); do
  dotnet "$plain/SpanBench.dll" quiet "$calls" | awk '{print $2}' >>"$work/unwoven.quiet"
  dotnet "$work/woven/SpanBench.dll" quiet "$calls" | awk '{print $2}' >>"$work/woven.quiet"
  dotnet "$work/woven/SpanBench.dll" listen "$calls" >"$work/listen.out"
  awk '/^Work/ {print $2}' "$work/listen.out" >>"$work/woven.listen"
  awk '/^ByHand / {print $2}' "$work/listen.out" >>"$work/byhand.listen"
  awk '/^ByHandAttributes / {print $2}' "$work/listen.out" >>"$work/attributes.listen"
  dotnet "$work/bare/SpanBench.dll" listen "$calls" | awk '/^Work/ {print $2}' >>"$work/bare.listen"
done
u=$(best <"$work/unwoven.quiet") w=$(best <"$work/woven.quiet")
wl=$(best <"$work/woven.listen") h=$(best <"$work/byhand.listen") ha=$(best <"$work/attributes.listen")
wb=$(best <"$work/bare.listen")
echo "machine: $(nproc) cores, $(uname -m); $(dotnet --list-runtimes | grep NETCore.App | tail -1)"
echo "Hot.Work, $calls calls, best of $runs runs:"
awk -v u="$u" -v w="$w" 'BEGIN {printf "  nobody listening: unwoven %.1f ns, woven %.1f ns a call (%.3fx)\n", u, w, w / u}'
awk -v wl="$wl" -v h="$h" -v ha="$ha" 'BEGIN {printf "  every span recorded: woven %.1f ns; by hand %.1f ns (%.3fx), by hand with the same three code attributes %.1f ns (%.3fx)\n", wl, h, wl / h, ha, wl / ha}'
awk -v wb="$wb" -v h="$h" 'BEGIN {printf "  every span recorded, woven with code: false: %.1f ns; by hand %.1f ns (%.3fx)\n", wb, h, wb / h}'
