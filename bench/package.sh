#!/usr/bin/env bash
# weft inside dotnet build and dotnet test, on corpus/WovenSolution, beside the same solution
# without weft and beside coverlet.msbuild, in one run:
#   - an incremental `dotnet build` of the solution with nothing changed: wall time with the Weft
#     package (its outputs woven and up to date) and without it (a copy with the package reference
#     removed), alternating, median of N; and the time of weft's own targets in MSBuild's
#     performance summary;
#   - `dotnet test` of Greeter.Tests, and of tests/coverage-compare (eight corpus programs), with
#     -p:WeftCoverage=true and with coverlet.msbuild
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

# dotnet test of $2 with -p:WeftCoverage=true and with coverlet.msbuild, beside each other
# ($1 names the run's files; the rest are more properties): the wall time of each (median), and
# each tool's instrumenting and report targets from MSBuild's performance summary.
compare_coverage() {
  local name=$1 project=$2
  shift 2
  local more=("${props[@]}" "$@" --results-directory "$work/$name-results")
  local weft=(-p:WeftCoverage=true)
  local coverlet=(-p:CollectCoverage=true -p:CoverletOutputFormat=cobertura
                  -p:CoverletOutput="$work/$name-coverlet/")
  dotnet test "$project" "${more[@]}" -v:q >/dev/null
  : >"$work/$name-weft.times"
  : >"$work/$name-coverlet.times"
  for ((i = 0; i < runs; i++)); do
    timed dotnet test "$project" "${more[@]}" "${weft[@]}" >>"$work/$name-weft.times"
    timed dotnet test "$project" "${more[@]}" "${coverlet[@]}" >>"$work/$name-coverlet.times"
  done
  dotnet test "$project" "${more[@]}" "${weft[@]}" -v:n -clp:PerformanceSummary \
    >"$work/$name-weft.summary" 2>&1
  dotnet test "$project" "${more[@]}" "${coverlet[@]}" -v:n -clp:PerformanceSummary \
    >"$work/$name-coverlet.summary" 2>&1
  echo "$name: dotnet test with coverage (median of $runs): weft $(median <"$work/$name-weft.times") ms," \
    "coverlet.msbuild $(median <"$work/$name-coverlet.times") ms"
  echo "$name: instrumenting the assemblies under test: weft" \
    "$(targets_ms "$work/$name-weft.summary" 'WeftCoverageBeforeTest') ms, coverlet.msbuild" \
    "$(targets_ms "$work/$name-coverlet.summary" 'InstrumentModules') ms; the report: weft" \
    "$(targets_ms "$work/$name-weft.summary" 'WeftCoverageReport') ms, coverlet.msbuild" \
    "$(targets_ms "$work/$name-coverlet.summary" 'GenerateCoverageResult') ms"
}

# The sample's tests (two target frameworks), and a larger test project: tests/coverage-compare
# runs eight corpus programs (C# and F#) from their entry points.
compare_coverage sample "$work/woven/Greeter.Tests/Greeter.Tests.csproj" -p:WeftEnabled=false
compare_coverage corpus "$here/../tests/coverage-compare/CoverageCompare.csproj" \
  -p:ArtifactsPath="$work/corpus-artifacts" -p:PathMap=
