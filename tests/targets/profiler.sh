#!/usr/bin/env bash
# The runtime profiler of another platform on that platform's .NET runtime: corpus programs
# published self-contained for RID, run under the target's `weft run` (through its runner) with
# the entry-exit pass and the Recorder probes, against the same programs under the development
# build's `weft run` on the installed runtime. The probe logs and what the programs print must be
# the same bytes, and what they print the corpus's expected output.
#
#   tests/targets/profiler.sh SCRATCH RID REFERENCE PROBES CORPUS_BIN PROGRAM... -- RUNNER... TARGET_WEFT
#
# REFERENCE is the native weft, PROBES the probe assembly (tests/probes), CORPUS_BIN the corpus
# build's bin folder (the reference runs its programs). The publish restores the runtime packs of
# RID from NuGet. Everything after -- is the command that runs the target's weft, the runner
# first; the runner also runs the published program (the target's weft starts it through the
# runner, as it would start any command). Exit status 0: all the same; 1: some differ.
set -euo pipefail
usage="usage: tests/targets/profiler.sh SCRATCH RID REFERENCE PROBES CORPUS_BIN PROGRAM... -- RUNNER... TARGET_WEFT"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
corpus="$here/../../corpus"
scratch=${1:?$usage}
rid=${2:?$usage}
reference=$(realpath "${3:?$usage}")
probes=$(realpath "${4:?$usage}")
corpus_bin=$(realpath "${5:?$usage}")
shift 5
programs=()
while (($#)) && [[ $1 != -- ]]; do
  programs+=("$1")
  shift
done
[[ ${1:-} == -- ]] && (($# > 1)) && ((${#programs[@]})) || { echo "$usage" >&2; exit 2; }
shift
target=("$@")
target[-1]=$(realpath "${target[-1]}")
runner=("${target[@]:0:${#target[@]}-1}")

mkdir -p "$scratch"
scratch=$(cd "$scratch" && pwd)
failed=0
for program in "${programs[@]}"; do
  echo "== $program"
  published="$scratch/artifacts/publish/$program/release_$rid"
  dotnet publish "$corpus/$program/$program.csproj" -r "$rid" --self-contained -p:UseAppHost=true \
    -p:ArtifactsPath="$scratch/artifacts" -nologo -v:q >"$scratch/$program.publish.log" 2>&1 ||
    { tail -n 20 "$scratch/$program.publish.log"; exit 1; }
  # Each side in a folder of its own: the program, the probes beside it, and no .deps.json, so
  # that the host trusts every assembly in the folder (the woven code loads Probes.dll).
  for side in reference target; do
    rm -rf "${scratch:?}/$program/$side"
    mkdir -p "$scratch/$program/$side"
  done
  cp "$corpus_bin/$program/release/$program".{dll,pdb,runtimeconfig.json} "$scratch/$program/reference/"
  cp -rl "$published/." "$scratch/$program/target/"
  rm -f "$scratch/$program/target/$program.deps.json"
  for side in reference target; do
    dir="$scratch/$program/$side"
    cp "$probes" "$dir/"
    printf '%s\n' "{\"version\": 1, \"rules\": [{\"match\": {\"assembly\": \"$program\"," \
      "\"compilerGenerated\": \"include\", \"stateMachines\": \"include\"}, \"passes\": [{\"name\":" \
      "\"entry-exit\", \"options\": {\"probe-assembly\": \"$(basename "$probes")\"," \
      "\"probe-type\": \"Weft.Probes.Recorder\"}}]}]}" >"$dir/weft.json"
  done
  # From the folder above: the host of a self-contained program without .deps.json takes a
  # runtimeconfig.json in the current folder for a request to run a .dll ("split/FX mode").
  cd "$scratch/$program"
  status=0
  WEFT_PROBE_LOG="$PWD/reference/probes.log" "$reference" run --log "$PWD/reference/weft.log" \
    --spec reference/weft.json -- dotnet "reference/$program.dll" >reference/output.txt \
    2>reference/errors.txt || status=$?
  echo "$status" >reference/status
  status=0
  WEFT_PROBE_LOG="$PWD/target/probes.log" "${target[@]}" run --log "$PWD/target/weft.log" \
    --spec target/weft.json -- "${runner[@]}" "$PWD/target/$program" >target/output.txt \
    2>target/errors.txt || status=$?
  echo "$status" >target/status
  for file in status output.txt probes.log; do
    if ! cmp -s "$scratch/$program"/{reference,target}/"$file"; then
      echo "$program: $file differs"
      diff "$scratch/$program"/{reference,target}/"$file" | head -n 20 || true
      failed=1
    fi
  done
  if ! cmp -s "$corpus/$program/expected.txt" "$scratch/$program/target/output.txt"; then
    echo "$program: the output is not the expected one"
    failed=1
  fi
  echo "$program: $(wc -l <"$scratch/$program/target/probes.log") probe calls;" \
    "$(grep -o 'shutting down: .*' "$scratch/$program/target/weft.log" || echo 'no shutdown line')"
done
exit "$failed"
