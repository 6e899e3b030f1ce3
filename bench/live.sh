#!/usr/bin/env bash
# Live instrumentation's cost, side by side in one run (weft-measure: least and median wall time
# of whole processes, the configurations taking turns):
#   - CallHeavy (corpus, 3 rounds): without the profiler; with it and a spec without tracepoints;
#     with a disabled tracepoint on Ackermann(m, n) (its code tests a flag and branches past the
#     recording); with that tracepoint enabled (both arguments and the result recorded). The cost
#     of an enabled call is the difference between the last two over the calls the log counts.
#   - an allocation-heavy program (bench/live: 200 rounds of 200,000 small objects): without the
#     profiler, with `--gc informational` and with `--gc verbose` (allocation ticks too);
#   - attach: a program calling 100 small methods in turn; the time from starting `weft attach`
#     with a spec whose tracepoint names all 100 to the first call on the timeline (5 times).
#
#   bench/live.sh [BUILD_DIR]      (default: build; run the tests once first: corpus)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$(cd "${1:-$here/../build}" && pwd)"
weft="$build/cli/weft"
measure="$build/bench/weft-measure"
library="$build/cli/libweft_profiler.so"
callheavy="$build/corpus/bin/CallHeavy/release/CallHeavy.dll"
for f in "$weft" "$measure" "$library" "$callheavy"; do
  [[ -e "$f" ]] || { echo "missing $f: build weft and run its tests first" >&2; exit 1; }
done
out="$(mktemp -d)"
trap 'touch "$out/stop"; rm -rf "$out"' EXIT
dotnet build "$here/live/Live.csproj" -c Release --artifacts-path "$out/live" -nologo -v:q >/dev/null
live="$out/live/bin/Live/release/Live.dll"
profiler=(env CORECLR_ENABLE_PROFILING=1 "CORECLR_PROFILER={E56F61AE-E543-4D22-8B50-7334A9E7F8D6}"
          "CORECLR_PROFILER_PATH=$library" "WEFT_LOG=$out/log" "WEFT_OUTPUT_DIR=$out")
spec() { # NAME TRACEPOINTS
  echo "{\"version\": 1, \"rules\": [], \"tracepoints\": $2}" >"$out/$1.json"
}
spec none '[]'
spec off '[{"name": "ack", "match": {"method": "Ackermann"}, "enabled": false}]'
spec on '[{"name": "ack", "match": {"method": "Ackermann"}}]'
spec all '[{"name": "all", "match": {"assembly": "Live", "method": "M*"}}]'
echo "machine: $(nproc) cores, $(uname -m); $(dotnet --list-runtimes | grep NETCore.App | tail -1)"

echo "CallHeavy, 3 rounds"
"$measure" --repeat 10 \
  --label "no profiler" -- dotnet "$callheavy" 3 ';;' \
  --label "profiler, no tracepoint" -- "${profiler[@]}" "WEFT_SPEC=$out/none.json" \
    dotnet "$callheavy" 3 ';;' \
  --label "a disabled tracepoint on Ackermann" -- "${profiler[@]}" "WEFT_SPEC=$out/off.json" \
    dotnet "$callheavy" 3 ';;' \
  --label "the tracepoint enabled (m, n and the result recorded)" -- \
    "${profiler[@]}" "WEFT_SPEC=$out/on.json" dotnet "$callheavy" 3
rm -f "$out/log"
"${profiler[@]}" "WEFT_SPEC=$out/on.json" dotnet "$callheavy" 3 >/dev/null
sed -n 's/.*timeline: .* reverted; \(.*\)/  enabled, one run: \1/p' "$out/log"

echo "allocation-heavy program, 200 rounds"
"$measure" --repeat 10 \
  --label "no profiler" -- dotnet "$live" alloc 200 ';;' \
  --label "--gc informational" -- "${profiler[@]}" WEFT_GC=informational dotnet "$live" alloc 200 \
  ';;' --label "--gc verbose" -- "${profiler[@]}" WEFT_GC=verbose dotnet "$live" alloc 200
rm -f "$out/log"
"${profiler[@]}" WEFT_GC=verbose dotnet "$live" alloc 200 >/dev/null
sed -n 's/.*\(gc: .*\)/  verbose, one run: \1/p' "$out/log"

echo "attach, a tracepoint on 100 methods: time to the first call on the timeline"
for run in 1 2 3 4 5; do
  rm -f "$out/stop" "$out"/weft-timeline-*.json "$out/attach.log"
  dotnet "$live" loop "$out/stop" >/dev/null &
  pid=$!
  sleep 1
  start=$(date +%s%N)
  "$weft" attach --pid "$pid" --spec "$out/all.json" --log "$out/attach.log" \
    --output-dir "$out" >/dev/null
  until grep -qs '"ph":"B"' "$out"/weft-timeline-*.json; do sleep 0.002; done
  end=$(date +%s%N)
  methods=$(sed -n 's/.*tracepoints: \([0-9]*\) methods compiled again.*/\1/p' "$out/attach.log")
  echo "  run $run: $(( (end - start) / 1000000 )) ms ($methods methods compiled again)"
  touch "$out/stop"
  wait "$pid"
done
