#!/usr/bin/env bash
# What instrumentation costs at run time: corpus/CallHeavy (many small calls, tight loops) as
# built, and woven with each pass given, timed in the same run, alternating, best of N.
#
#   bench/runtime.sh [BUILD_DIR] [PASS...]     (default: build coverage)
#
# Each PASS is a --pass value of `weft weave` (NAME or NAME:key=value,...) and is woven on its own.
# Prints one line per pass: "NAME: unwoven X s, woven Y s, ratio Z". Environment: WEFT_BENCH_RUNS
# (default 5) runs of each program, WEFT_BENCH_ROUNDS (default 10) CallHeavy rounds per run.
# WEFT_BENCH_BEFORE, another weft executable (an earlier build), weaves each pass too, timed in
# the same runs: "NAME: unwoven X s, woven Y s, ratio Z; before: woven Y' s, ratio Z'". The
# coverage pass is timed beside CallHeavy as coverlet.msbuild instruments it
# (bench/peers/coverlet-instrument.sh): "...; coverlet.msbuild: Y'' s, ratio Z''".
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$(cd "${1:-$here/../build}" && pwd)"
shift || true
passes=("$@")
[[ ${#passes[@]} -gt 0 ]] || passes=(coverage)
runs="${WEFT_BENCH_RUNS:-5}"
rounds="${WEFT_BENCH_ROUNDS:-10}"

weft="$build/cli/weft"
[[ -x "$weft" ]] || { echo "build weft first (missing $weft)" >&2; exit 1; }
input="$build/corpus/bin/CallHeavy/release/CallHeavy.dll"
if [[ ! -f "$input" ]]; then
  dotnet build "$here/../corpus/CallHeavy/CallHeavy.csproj" -p:ArtifactsPath="$build/corpus" \
    -nologo -v:q >/dev/null
fi
config="${input%.dll}.runtimeconfig.json"

work="$build/bench-runtime"
rm -rf "$work"
mkdir -p "$work/unwoven"
cp "$input" "$config" "$work/unwoven/"

# Wall time of one run in seconds (the output is checked against the unwoven run's).
time_run() {
  local dir="$1" start end
  start=$(date +%s%N)
  (cd "$dir" && dotnet CallHeavy.dll "$rounds" >out.txt)
  end=$(date +%s%N)
  echo $(((end - start) / 1000000))
}
seconds() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }

echo "machine: $(nproc) cores, $(uname -m); $(dotnet --list-runtimes | grep NETCore.App | tail -1)"
echo "CallHeavy $rounds rounds, best of $runs runs"
for pass in "${passes[@]}"; do
  name="${pass//[:=,]/-}"
  dir="$work/$name"
  mkdir -p "$dir"
  cp "$config" "$dir/"
  # The woven program loads the probe assembly a pass names from its own folder (no deps.json).
  if [[ "$pass" =~ probe-assembly=([^,]*) ]]; then cp "${BASH_REMATCH[1]}" "$dir/"; fi
  "$weft" weave "$input" -o "$dir/CallHeavy.dll" --pass "$pass" 2>"$dir/weave.log" || {
    cat "$dir/weave.log" >&2
    exit 1
  }
  before=""
  if [[ -n "${WEFT_BENCH_BEFORE:-}" ]]; then
    before="$work/$name-before"
    mkdir -p "$before"
    cp "$config" "$before/"
    [[ "$pass" =~ probe-assembly=([^,]*) ]] && cp "${BASH_REMATCH[1]}" "$before/"
    "$WEFT_BENCH_BEFORE" weave "$input" -o "$before/CallHeavy.dll" --pass "$pass" \
      2>"$before/weave.log" || {
      cat "$before/weave.log" >&2
      exit 1
    }
  fi
  peer=""
  if [[ "$pass" == coverage ]]; then
    peer="$work/coverlet"
    mkdir -p "$peer"
    cp "$input" "${input%.dll}.pdb" "$config" "$peer/"
    "$here/peers/coverlet-instrument.sh" "$peer/CallHeavy.dll" "$work/coverlet-work"
  fi
  best_u=0 best_w=0 best_b=0 best_p=0
  for ((i = 0; i < runs; i++)); do
    u=$(time_run "$work/unwoven")
    w=$(time_run "$dir")
    ((best_u == 0 || u < best_u)) && best_u=$u
    ((best_w == 0 || w < best_w)) && best_w=$w
    if [[ -n "$before" ]]; then
      b=$(time_run "$before")
      ((best_b == 0 || b < best_b)) && best_b=$b
    fi
    if [[ -n "$peer" ]]; then
      p=$(time_run "$peer")
      ((best_p == 0 || p < best_p)) && best_p=$p
    fi
  done
  for d in "$dir" $before $peer; do
    cmp -s "$work/unwoven/out.txt" "$d/out.txt" || {
      echo "$name: the woven program's output differs ($d)" >&2
      exit 1
    }
  done
  ratio() { awk -v u="$best_u" -v w="$1" 'BEGIN { printf "%.3f", w / u }'; }
  line="$name: unwoven $(seconds $best_u) s, woven $(seconds $best_w) s, ratio $(ratio $best_w)"
  [[ -n "$before" ]] && line+="; before: woven $(seconds $best_b) s, ratio $(ratio $best_b)"
  [[ -n "$peer" ]] && line+="; coverlet.msbuild: $(seconds $best_p) s, ratio $(ratio $best_p)"
  echo "$line"
done
