#!/usr/bin/env bash
# dotnet test with coverage by coverlet and by weft on a test project of one's own (a library's
# own tests), side by side in one run: two copies of the project, one as it is with coverlet and
# one switched to the Weft package (package added, properties renamed), both built. Runs
# `dotnet test --no-build` without coverage, with coverlet and with weft, taking turns, N times,
# and prints the median wall time of each, and what coverage costs each tool: for VSTest the time
# of its instrumenting and report targets in MSBuild's performance summary; for
# Microsoft.Testing.Platform (--mtp; coverlet.MTP's --coverlet beside -p:WeftCoverage=true) the
# run's time over the run without coverage. Both coverage extensions run the tests in a test host
# process their controller process starts; --controller OPTION runs the weft copy a fourth way,
# with a test application option that only starts such a controller (--crash-report, where the
# project has Microsoft.Testing.Extensions.CrashDump), and prints what each tool adds over that:
# its instrumenting and report steps.
#
#   bench/dotnet-test.sh [--mtp [--controller OPTION]] [--runs N] COVERLET_PROJECT WEFT_PROJECT
#                        [-- dotnet test options]
#
# (In --mtp mode run it from the repository's folder: dotnet test takes its runner from the
# global.json it finds there.)
#
# The coverlet copy runs with -p:CollectCoverage=true (or --coverlet), the weft copy with
# -p:WeftCoverage=true; the options after -- go to every run (-c Release, a filter, the restore
# properties the copies were built with).
set -euo pipefail
runs=5 mtp=false controller=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --mtp) mtp=true; shift ;;
    --controller) controller=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    *) break ;;
  esac
done
coverlet_project=${1:?usage: bench/dotnet-test.sh [--mtp] [--runs N] COVERLET_PROJECT WEFT_PROJECT [-- options]}
weft_project=${2:?usage: bench/dotnet-test.sh [--mtp] [--runs N] COVERLET_PROJECT WEFT_PROJECT [-- options]}
shift 2
[[ ${1:-} == -- ]] && shift
options=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ms() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# The milliseconds MSBuild's performance summary gives the targets whose names match $2.
targets_ms() {
  awk -v pat="^($2)\$" '/Target Performance Summary/ {on=1; next}
                   /Task Performance Summary/ {on=0}
                   on && $2 == "ms" && $3 ~ pat {sum += $1} END {printf "%d", sum}' "$1"
}
# dotnet test of project $2 with the options after it, once; its milliseconds appended to
# $work/$1.times and its output kept in $work/$1.log (a failed run stops the benchmark).
run() {
  local name=$1 project=$2 s e
  shift 2
  local target=("$project")
  $mtp && target=(--project "$project")
  s=$(ms)
  if ! dotnet test "${target[@]}" --no-build "${options[@]}" "$@" >"$work/$name.log" 2>&1; then
    echo "dotnet-test.sh: the $name run failed:" >&2
    tail -n 30 "$work/$name.log" >&2
    exit 1
  fi
  e=$(ms)
  echo $(((e - s) / 1000000)) >>"$work/$name.times"
}

if $mtp; then
  coverlet=(--coverlet)
else
  coverlet=(-p:CollectCoverage=true -p:CoverletOutputFormat=cobertura)
fi
weft=(-p:WeftCoverage=true)
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $(dotnet --version) SDK; $runs runs each, taking turns"
for ((i = 0; i < runs; i++)); do
  run none "$weft_project"
  run coverlet "$coverlet_project" "${coverlet[@]}"
  run weft "$weft_project" "${weft[@]}"
  [[ -n $controller ]] && run controller "$weft_project" -- "$controller"
done
none=$(median <"$work/none.times")
c=$(median <"$work/coverlet.times")
w=$(median <"$work/weft.times")
echo "dotnet test --no-build (median): without coverage $none ms, coverlet $c ms, weft $w ms"
if $mtp; then
  echo "what coverage adds to the run: coverlet.MTP $((c - none)) ms, weft $((w - none)) ms"
  if [[ -n $controller ]]; then
    k=$(median <"$work/controller.times")
    echo "with a controller process only ($controller): $k ms; what each adds over it (instrumenting and report): coverlet.MTP $((c - k)) ms, weft $((w - k)) ms"
  fi
else
  # The targets' times from runs with MSBuild's performance summary, taking turns: medians.
  # record NAME TARGET STEP: the run NAME's time in TARGET appended to $work/NAME.STEP.
  record() { echo "$(targets_ms "$work/$1.log" "$2")" >>"$work/$1.$3"; }
  ratio() { awk -v c="$1" -v w="$2" 'BEGIN {printf "%.1f", w ? c / w : 0}'; }
  for ((i = 0; i < runs; i++)); do
    # Each step's targets, their own times: coverlet's instrumenting task and its result task
    # (which puts the original assemblies back and writes the report); weft's targets before the
    # tests, and after them the originals put back, the hits checked and the report.
    run coverlet-summary "$coverlet_project" "${coverlet[@]}" -v:n -clp:PerformanceSummary
    record coverlet-summary 'InstrumentModules|InstrumentModulesNoBuild|InstrumentModulesAfterBuild' instrument
    record coverlet-summary 'GenerateCoverageResult|GenerateCoverageResultAfterTest' report
    run weft-summary "$weft_project" "${weft[@]}" -v:n -clp:PerformanceSummary
    record weft-summary '_WeftCheckExe|_WeftCoverageBeforeAllTests|_WeftCoverageSettings|_WeftCoverageTargets|WeftCoverageBeforeTest|_WeftCoverageNoBuild|_WeftCoverageAfterBuild' instrument
    record weft-summary 'WeftCoverageAfterTest|WeftCoverageRestore|WeftCoverageReport|_WeftCoverageReportAfterTest' report
    record weft-summary 'WeftCoverageReport' report-alone
  done
  ci=$(median <"$work/coverlet-summary.instrument") wi=$(median <"$work/weft-summary.instrument")
  cr=$(median <"$work/coverlet-summary.report") wr=$(median <"$work/weft-summary.report")
  wa=$(median <"$work/weft-summary.report-alone")
  spread() { sort -n "$1" | awk '{a[NR]=$1} END {printf "%d-%d", a[1], a[NR]}'; }
  echo "instrumenting (median of $runs, range): coverlet.msbuild $ci ms ($(spread "$work/coverlet-summary.instrument")), weft $wi ms ($(spread "$work/weft-summary.instrument")): $(ratio "$ci" "$wi")x"
  echo "after the tests (originals back, the report; median, range): coverlet.msbuild $cr ms ($(spread "$work/coverlet-summary.report")), weft $wr ms ($(spread "$work/weft-summary.report")): $(ratio "$cr" "$wr")x; weft's report alone $wa ms ($(ratio "$cr" "$wa")x)"
fi
