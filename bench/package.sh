#!/usr/bin/env bash
# weft inside dotnet build and dotnet test, on corpus/WovenSolution, beside the same solution
# without weft and beside coverlet.msbuild, in one run:
#   - an incremental `dotnet build` of the solution with nothing changed: wall time with the Weft
#     package (its outputs woven and up to date) and without it (a copy with the package reference
#     removed), alternating, median of N; and the time of weft's own targets in MSBuild's
#     performance summary;
#   - `dotnet test` of Greeter.Tests with -p:WeftCoverage=true and with coverlet.msbuild
#     (-p:CollectCoverage=true): the time each tool's instrumentation target takes (MSBuild's
#     performance summary) and the wall time of the whole `dotnet test`, median of N.
#
#   bench/package.sh [BUILD_DIR]     (default: build; packs the package first; WEFT_BENCH_RUNS=7)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$(cd "${1:-$here/../build}" && pwd)"
runs="${WEFT_BENCH_RUNS:-7}"
work="$build/bench-package"
rm -rf "$work"
mkdir -p "$work"
"$here/../package/pack.sh" "$build" "$work/nupkg" >/dev/null
version=$(sed -n 's/^project(weft VERSION \([0-9.]*\).*/\1/p' "$here/../CMakeLists.txt")
for copy in woven plain; do
  cp -R "$here/../corpus/WovenSolution" "$work/$copy"
done
# The plain copy: no Weft package, no specs.
sed -i '/Include="Weft"/d' "$work"/plain/*/*.csproj
rm -f "$work"/plain/*/weft.json
props=(-p:RestoreAdditionalProjectSources="$work/nupkg" -p:RestorePackagesPath="$work/packages"
       -p:WeftVersion="$version" -nologo)

ms() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# Milliseconds of a command.
timed() { local s e; s=$(ms); "$@" >/dev/null 2>&1; e=$(ms); echo $(((e - s) / 1000000)); }
# The milliseconds MSBuild's performance summary gives the targets whose name matches $2.
# (lines "  12 ms  Name  N calls"; $2 is a regular expression of whole names).
targets_ms() {
  awk -v pat="^($2)\$" '/Target Performance Summary/ {on=1; next}
                   /Task Performance Summary/ {on=0}
                   on && $2 == "ms" && $3 ~ pat {sum += $1} END {printf "%d", sum}' "$1"
}

echo "machine: $(nproc) cores; $(dotnet --version) SDK; weft $version"
for copy in woven plain; do
  dotnet build "$work/$copy/WovenSolution.slnx" "${props[@]}" -v:q >/dev/null
  dotnet build "$work/$copy/WovenSolution.slnx" "${props[@]}" -v:q >/dev/null
done
: >"$work/woven.times"
: >"$work/plain.times"
for ((i = 0; i < runs; i++)); do
  timed dotnet build "$work/woven/WovenSolution.slnx" "${props[@]}" -v:q >>"$work/woven.times"
  timed dotnet build "$work/plain/WovenSolution.slnx" "${props[@]}" -v:q >>"$work/plain.times"
done
dotnet build "$work/woven/WovenSolution.slnx" "${props[@]}" -v:n -clp:PerformanceSummary \
  >"$work/woven.summary" 2>&1
grep -q "weft: woven" "$work/woven.summary" && echo "unexpected: the incremental build wove" >&2
echo "incremental build, nothing changed (median of $runs): with weft $(median <"$work/woven.times") ms," \
  "without $(median <"$work/plain.times") ms; weft's targets $(targets_ms "$work/woven.summary" 'WeftWeave|_WeftReadDependencies|_WeftUseWoven') ms"

test_project="$work/woven/Greeter.Tests/Greeter.Tests.csproj"
dotnet test "$test_project" "${props[@]}" -p:WeftEnabled=false -v:q >/dev/null
: >"$work/weft-test.times"
: >"$work/coverlet-test.times"
for ((i = 0; i < runs; i++)); do
  timed dotnet test "$test_project" "${props[@]}" -p:WeftEnabled=false -p:WeftCoverage=true \
    >>"$work/weft-test.times"
  timed dotnet test "$test_project" "${props[@]}" -p:WeftEnabled=false -p:CollectCoverage=true \
    -p:CoverletOutputFormat=cobertura -p:CoverletOutput="$work/coverlet/" >>"$work/coverlet-test.times"
done
dotnet test "$test_project" "${props[@]}" -p:WeftEnabled=false -p:WeftCoverage=true -v:n \
  -clp:PerformanceSummary >"$work/weft-test.summary" 2>&1
dotnet test "$test_project" "${props[@]}" -p:WeftEnabled=false -p:CollectCoverage=true \
  -p:CoverletOutputFormat=cobertura -p:CoverletOutput="$work/coverlet/" -v:n \
  -clp:PerformanceSummary >"$work/coverlet-test.summary" 2>&1
echo "dotnet test with coverage (median of $runs): weft $(median <"$work/weft-test.times") ms," \
  "coverlet.msbuild $(median <"$work/coverlet-test.times") ms"
echo "instrumenting the assemblies under test: weft $(targets_ms "$work/weft-test.summary" 'WeftCoverageBeforeTest') ms," \
  "coverlet.msbuild $(targets_ms "$work/coverlet-test.summary" 'InstrumentModules') ms;" \
  "the report: weft $(targets_ms "$work/weft-test.summary" 'WeftCoverageAfterTest') ms," \
  "coverlet.msbuild $(targets_ms "$work/coverlet-test.summary" 'GenerateCoverageResult') ms"
