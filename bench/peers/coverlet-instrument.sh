#!/usr/bin/env bash
# Instruments ASSEMBLY in place as coverlet.msbuild does for `dotnet test` (its own task, from
# NuGet), for the run-time benchmarks' side-by-side figures. WORK (a folder of the benchmark's)
# takes the restore's files and is the temporary folder the instrumented assembly writes its
# hits under.
#
#   bench/peers/coverlet-instrument.sh ASSEMBLY WORK
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
assembly="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
work="$2"
mkdir -p "$work"
cp "$assembly" "$work/original.dll"
TMPDIR="$work" dotnet msbuild "$here/CoverletInstrument/CoverletInstrument.csproj" -restore \
  -t:Instrument -p:Assembly="$assembly" -p:BaseIntermediateOutputPath="$work/obj/" \
  -nologo -v:m >"$work/instrument.log" 2>&1 || { cat "$work/instrument.log" >&2; exit 1; }
if cmp -s "$assembly" "$work/original.dll"; then
  echo "coverlet did not instrument $assembly:" >&2
  cat "$work/instrument.log" >&2
  exit 1
fi
