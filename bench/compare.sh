#!/usr/bin/env bash
# weft beside the .NET libraries it is measured against, on the same inputs in one run:
#   read       weft-read-bench, System.Reflection.Metadata and Mono.Cecil read every table,
#              signature, custom attribute and method body;
#   roundtrip  weft-roundtrip-bench and Mono.Cecil read, decode every method body, encode it
#              again and write the assembly (a ReadyToRun input is written as IL only by both);
#   weave      weft-weave-bench (`weft weave --pass entry-exit` with the empty probes of
#              tests/probes on every method) and Mono.Cecil inserting the same two probe calls.
#              Cecil's is the lighter transformation: it makes the calls inline, where weft calls
#              the probes through trampolines (which catch what a probe throws), gives each method
#              one exit block and calls OnEnter in a constructor after the base constructor call.
# Inputs: System.Private.CoreLib.dll and the whole Microsoft.NETCore.App folder (read, roundtrip);
# System.Private.CoreLib.dll and the newest SDK's Roslyn Microsoft.CodeAnalysis.CSharp.dll (weave).
#
#   bench/compare.sh [read|roundtrip|weave|all] [BUILD_DIR]      (default: all, build)
#
# Each case runs in its own process (peak RSS is per process) and does its work 5 times: "first
# run" is the first (for the .NET libraries it includes the JIT compiling them), "best" the
# fastest; "process" is the whole command's wall time, start-up and all five runs included.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
what="${1:-all}"
build="$(cd "${2:-$here/../build}" && pwd)"
case "$what" in read|roundtrip|weave|all) ;; *) echo "usage: $0 [read|roundtrip|weave|all] [BUILD_DIR]" >&2; exit 2 ;; esac
tools=(weft-read-bench weft-roundtrip-bench weft-weave-bench)
[[ "$what" == all ]] || tools=("weft-$what-bench")
for tool in "${tools[@]}"; do
  [[ -x "$build/bench/$tool" ]] || { echo "build weft first (missing $build/bench/$tool)" >&2; exit 1; }
done

peers="$build/bench-peers"
dotnet build "$here/peers/Peers/Peers.csproj" -c Release --artifacts-path "$peers" -nologo -v:q \
  >/dev/null
peer_dll="$peers/bin/Peers/release/Peers.dll"
probes="$build/probes/bin/Probes/debug/Probes.dll"
if [[ "$what" == weave || "$what" == all ]] && [[ ! -f "$probes" ]]; then
  dotnet build "$here/../tests/probes/Probes.csproj" --artifacts-path "$build/probes" -nologo -v:q \
    >/dev/null
fi

echo "machine: $(nproc) cores, $(uname -m); $(dotnet --list-runtimes | grep NETCore.App | tail -1)"
run() {
  local start end
  start=$(date +%s%N)
  "$@"
  end=$(date +%s%N)
  printf '  process %d.%03d s\n' $(((end - start) / 1000000000)) $(((end - start) / 1000000 % 1000))
}
for input in --corelib --framework; do
  [[ "$what" != weave ]] || break
  if [[ "$what" != roundtrip ]]; then
    run "$build/bench/weft-read-bench" "$input" --repeat 5
    run dotnet "$peer_dll" srm --repeat 5 "$input"
    run dotnet "$peer_dll" cecil --repeat 5 "$input"
  fi
  if [[ "$what" != read ]]; then
    run "$build/bench/weft-roundtrip-bench" "$input" --repeat 5
    run dotnet "$peer_dll" cecil-roundtrip --repeat 5 "$input"
  fi
done
if [[ "$what" == weave || "$what" == all ]]; then
  for input in --corelib --csharp; do
    run "$build/bench/weft-weave-bench" "$input" --probe "$probes" --repeat 5
    run dotnet "$peer_dll" cecil-entry-exit --probe "$probes" --repeat 5 "$input"
  done
fi
