#!/usr/bin/env bash
# weft beside the .NET libraries it is measured against, on the same inputs in one run:
#   read       weft-read-bench, System.Reflection.Metadata and Mono.Cecil read every table,
#              signature, custom attribute and method body;
#   roundtrip  weft-roundtrip-bench and Mono.Cecil read, decode every method body, encode it
#              again and write the assembly (a ReadyToRun input is written as IL only by both).
# Inputs: System.Private.CoreLib.dll and the whole Microsoft.NETCore.App folder.
#
#   bench/compare.sh [read|roundtrip|all] [BUILD_DIR]      (default: all, build)
#
# Each case runs in its own process (peak RSS is per process) and does its work 5 times: "first
# run" is the first (for the .NET libraries it includes the JIT compiling them), "best" the
# fastest; "process" is the whole command's wall time, start-up and all five runs included.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
what="${1:-all}"
build="$(cd "${2:-$here/../build}" && pwd)"
case "$what" in read|roundtrip|all) ;; *) echo "usage: $0 [read|roundtrip|all] [BUILD_DIR]" >&2; exit 2 ;; esac
for tool in weft-read-bench weft-roundtrip-bench; do
  [[ -x "$build/bench/$tool" ]] || { echo "build weft first (missing $build/bench/$tool)" >&2; exit 1; }
done

peers="$build/bench-peers"
dotnet build "$here/peers/Peers/Peers.csproj" -c Release --artifacts-path "$peers" -nologo -v:q \
  >/dev/null
peer_dll="$peers/bin/Peers/release/Peers.dll"

echo "machine: $(nproc) cores, $(uname -m); $(dotnet --list-runtimes | grep NETCore.App | tail -1)"
run() {
  local start end
  start=$(date +%s%N)
  "$@"
  end=$(date +%s%N)
  printf '  process %d.%03d s\n' $(((end - start) / 1000000000)) $(((end - start) / 1000000 % 1000))
}
for input in --corelib --framework; do
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
