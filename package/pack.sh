#!/usr/bin/env bash
# Makes the NuGet package Weft from a built tree: the weft executable without its debug
# information, with build/Weft.props and build/Weft.targets and the VSTest data collector
# (package/collector, built here), packed by `dotnet pack`.
#
#   package/pack.sh BUILD_DIR [OUT_DIR]     (default OUT_DIR: BUILD_DIR/nupkg)
#
# The version is the project's (CMakeLists.txt). Prints the package's path.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$(cd "${1:?usage: package/pack.sh BUILD_DIR [OUT_DIR]}" && pwd)"
out="${2:-$build/nupkg}"
weft="$build/cli/weft"
[[ -x "$weft" ]] || { echo "pack.sh: build weft first (missing $weft)" >&2; exit 1; }
version=$(sed -n 's/^project(weft VERSION \([0-9.]*\).*/\1/p' "$here/../CMakeLists.txt")
stage="$build/package"
rm -rf "$stage"
mkdir -p "$stage" "$out"
strip -o "$stage/weft" "$weft"
# The VSTest data collector (C#), built for the package.
dotnet build "$here/collector/Weft.Collector.csproj" -c Release --artifacts-path "$stage/collector" \
  -nologo -v:q >"$stage/collector.log" 2>&1 || { cat "$stage/collector.log" >&2; exit 1; }
dotnet pack "$here/Weft.csproj" -o "$out" -p:WeftBinary="$stage/weft" -p:Version="$version" \
  -p:WeftCollector="$stage/collector/bin/Weft.Collector/release/Weft.Collector.dll" \
  --artifacts-path "$stage/artifacts" -nologo -v:q >"$stage/pack.log" 2>&1 ||
  { cat "$stage/pack.log" >&2; exit 1; }
echo "$out/Weft.$version.nupkg"
