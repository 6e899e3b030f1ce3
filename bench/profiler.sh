#!/usr/bin/env bash
# The runtime profiler's cost, side by side in one run (weft-measure: least and median wall time
# of 20 whole processes, the configurations taking turns):
#   - a corpus program (Generics) and a framework-heavy one (bench/startup: System.Text.Json),
#   - without the profiler; with a profiler that does nothing (bench/nullprofiler: what the
#     runtime itself charges for loading one, which weft's figures are read against); with weft's
#     and a spec that matches nothing (with no "assembly" rule, and with one, which makes the
#     profiler read every framework module as it loads);
#   - with entry-exit (empty probes) on every method of the program, and with coverage (the whole
#     module woven at its first compilation), each beside the same program woven offline;
#   - for the JSON program, entry-exit on System.Text.Json's JsonSerializer (framework code,
#     ReadyToRun: declined and compiled, and ReJIT-ed with its inliners);
# and the time per method woven at JIT time, from the profiler's log (median, 90th and 99th
# percentile).
#
#   bench/profiler.sh [BUILD_DIR]      (default: build; run the tests once first: corpus, probes)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$(cd "${1:-$here/../build}" && pwd)"
weft="$build/cli/weft"
measure="$build/bench/weft-measure"
library="$build/cli/libweft_profiler.so"
null_library="$build/bench/libweft_null_profiler.so"
probes="$build/probes/bin/Probes/debug/Probes.dll"
generics="$build/corpus/bin/Generics/release/Generics.dll"
for f in "$weft" "$measure" "$library" "$null_library" "$probes" "$generics"; do
  [[ -e "$f" ]] || { echo "missing $f: build weft and run its tests first" >&2; exit 1; }
done
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
dotnet build "$here/startup/JsonApp.csproj" -c Release --artifacts-path "$out/json" -nologo -v:q \
  >/dev/null
json="$out/json/bin/JsonApp/release/JsonApp.dll"

cat >"$out/nothing.json" <<'SPEC'
{"version": 1, "rules": [{"match": {"method": "NoSuchMethodAnywhere"}, "passes": ["single-ret"]}]}
SPEC
cat >"$out/nothing-assembly.json" <<'SPEC'
{"version": 1, "rules": [{"match": {"assembly": "NoSuchAssembly", "method": "NoSuchMethodAnywhere"},
  "passes": ["single-ret"]}]}
SPEC
profiler=(env CORECLR_ENABLE_PROFILING=1 "CORECLR_PROFILER={E56F61AE-E543-4D22-8B50-7334A9E7F8D6}"
          "CORECLR_PROFILER_PATH=$library")
echo "machine: $(nproc) cores, $(uname -m); $(dotnet --list-runtimes | grep NETCore.App | tail -1)"
for program in "$generics" "$json"; do
  name="$(basename "$program" .dll)"
  dir="$out/$name" woven="$out/$name-woven"
  mkdir -p "$dir" "$woven"
  cp "$(dirname "$program")/$name".{dll,runtimeconfig.json} "$probes" "$dir/"
  pass="entry-exit:probe-assembly=$dir/Probes.dll,probe-type=Weft.Probes.Empty"
  "$weft" weave "$dir/$name.dll" -o "$woven/$name.dll" --pass "$pass" >/dev/null
  cp "$dir/$name.runtimeconfig.json" "$probes" "$woven/"
  mkdir -p "$woven-cov"
  "$weft" weave "$dir/$name.dll" -o "$woven-cov/$name.dll" --pass coverage >/dev/null
  cp "$dir/$name.runtimeconfig.json" "$woven-cov/"
  cat >"$out/framework.json" <<SPEC
{"version": 1, "rules": [{"match": {"assembly": "System.Text.Json", "namespace": "System.Text.Json",
  "type": "JsonSerializer"}, "passes": [{"name": "entry-exit", "options": {
  "probe-assembly": "$dir/Probes.dll", "probe-type": "Weft.Probes.Empty"}}]}]}
SPEC
  # One run of each configuration per round (weft-measure ';;'): the machine's drift slows all.
  configs=(
    --label "no profiler" -- dotnet "$dir/$name.dll" ';;'
    --label "a profiler that does nothing (the runtime's own charge)" --
      env CORECLR_ENABLE_PROFILING=1 "CORECLR_PROFILER={E56F61AE-E543-4D22-8B50-7334A9E7F8D6}"
      "CORECLR_PROFILER_PATH=$null_library" dotnet "$dir/$name.dll" ';;'
    --label "profiler, a spec that matches nothing" --
      "${profiler[@]}" "WEFT_SPEC=$out/nothing.json" "WEFT_LOG=$out/log" dotnet "$dir/$name.dll" ';;'
    --label "profiler, the same with an assembly rule" --
      "${profiler[@]}" "WEFT_SPEC=$out/nothing-assembly.json" "WEFT_LOG=$out/log"
      dotnet "$dir/$name.dll" ';;'
    --label "profiler, entry-exit on every method of the program" --
      "${profiler[@]}" "WEFT_PASSES=$pass" "WEFT_LOG=$out/log" dotnet "$dir/$name.dll" ';;'
    --label "woven offline with entry-exit, no profiler" -- dotnet "$woven/$name.dll" ';;'
    --label "profiler, coverage on every method of the program" --
      "${profiler[@]}" "WEFT_PASSES=coverage" "WEFT_OUTPUT_DIR=$out" "WEFT_COVERAGE_FILE=$out/hits"
      "WEFT_LOG=$out/log" dotnet "$dir/$name.dll" ';;'
    --label "woven offline with coverage, no profiler" --
      env "WEFT_COVERAGE_FILE=$out/hits" dotnet "$woven-cov/$name.dll"
  )
  if [[ "$name" == JsonApp ]]; then
    configs+=(';;' --label "profiler, entry-exit on System.Text.Json's JsonSerializer" --
              "${profiler[@]}" "WEFT_SPEC=$out/framework.json" "WEFT_LOG=$out/log"
              dotnet "$dir/$name.dll")
  fi
  echo "$name"
  "$measure" --repeat 20 "${configs[@]}"
  rm -f "$out/log"
  "${profiler[@]}" "WEFT_PASSES=$pass" "WEFT_LOG=$out/log" dotnet "$dir/$name.dll" >/dev/null
  sed -n 's/.*\(time per method woven at JIT time\)/  \1/p' "$out/log"
done
