#!/usr/bin/env bash
# Read benchmark, side by side in one run: weft, System.Reflection.Metadata and Mono.Cecil read
# System.Private.CoreLib.dll and the whole Microsoft.NETCore.App folder completely.
#
#   bench/read.sh [BUILD_DIR]        (default: build)
#
# Each case runs in its own process (peak RSS is per process) and reads its input 5 times: "first
# run" is the first (for the .NET readers it includes the JIT compiling them), "best" the fastest;
# "process" is the whole command's wall time, start-up and all five runs included.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$(cd "${1:-$here/../build}" && pwd)"
weft_bench="$build/bench/weft-read-bench"
[[ -x "$weft_bench" ]] || { echo "build weft first (missing $weft_bench)" >&2; exit 1; }

peers="$build/bench-peers"
dotnet build "$here/peers/ReadPeers/ReadPeers.csproj" -c Release --artifacts-path "$peers" \
  -nologo -v:q >/dev/null
peer_dll="$peers/bin/ReadPeers/release/ReadPeers.dll"

echo "machine: $(nproc) cores, $(uname -m); $(dotnet --list-runtimes | grep NETCore.App | tail -1)"
run() {
  local start end
  start=$(date +%s%N)
  "$@"
  end=$(date +%s%N)
  printf '  process %d.%03d s\n' $(((end - start) / 1000000000)) $(((end - start) / 1000000 % 1000))
}
for input in --corelib --framework; do
  run "$weft_bench" "$input" --repeat 5
  run dotnet "$peer_dll" srm --repeat 5 "$input"
  run dotnet "$peer_dll" cecil --repeat 5 "$input"
done
