#!/usr/bin/env bash
# Makes the NuGet package Weft from a built tree: weft and its profiler for each platform built
# (tools/RID/: weft, its profiler and libweft_inprocess), without their debug information, with
# build/Weft.props and build/Weft.targets, the VSTest data collector (package/collector), the
# Microsoft.Testing.Platform extension (package/testing-platform) and the MSBuild task
# (package/tasks), all three built here, packed by `dotnet pack`.
#
#   package/pack.sh BUILD_DIR [OUT_DIR]     (default OUT_DIR: BUILD_DIR/nupkg)
#
# A platform's files come from BUILD_DIR/RID/cli (./dev build --target RID: linux-x64,
# linux-arm64, win-x64). Without BUILD_DIR/linux-x64, tools/linux-x64 takes the development
# build's (BUILD_DIR/cli), which needs this machine's libraries. The version is the project's
# (CMakeLists.txt). Prints the package's path and, on stderr, the platforms it carries.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$(cd "${1:?usage: package/pack.sh BUILD_DIR [OUT_DIR]}" && pwd)"
out="${2:-$build/nupkg}"
version=$(sed -n 's/^project(weft VERSION \([0-9.]*\).*/\1/p' "$here/../CMakeLists.txt")
stage="$build/package"
rm -rf "$stage"
mkdir -p "$stage/tools" "$out"

# Copies FILE into tools/RID/ without its symbols, with STRIP when that tool is installed.
stage_file() {
  local rid=$1 file=$2 strip=$3
  mkdir -p "$stage/tools/$rid"
  if command -v "$strip" >/dev/null; then
    "$strip" --strip-debug -o "$stage/tools/$rid/$(basename "$file")" "$file"
  else
    cp "$file" "$stage/tools/$rid/"
  fi
}

carried=()
for rid in linux-x64 linux-arm64 win-x64; do
  dir="$build/$rid/cli"
  case $rid in
    linux-x64) files=(weft libweft_profiler.so libweft_inprocess.so) strip=strip ;;
    linux-arm64) files=(weft libweft_profiler.so libweft_inprocess.so) strip=aarch64-linux-gnu-strip ;;
    win-x64) files=(weft.exe weft_profiler.dll weft_inprocess.dll) strip=x86_64-w64-mingw32-strip ;;
  esac
  if [[ $rid == linux-x64 && ! -x "$dir/weft" ]]; then
    dir="$build/cli" # the development build
    echo "pack.sh: tools/linux-x64 from the development build ($dir): it needs this machine's libraries (./dev pack builds the portable one)" >&2
  fi
  [[ -f "$dir/${files[0]}" ]] || continue
  for f in "${files[@]}"; do
    [[ -f "$dir/$f" ]] && stage_file "$rid" "$dir/$f" "$strip"
  done
  carried+=("$rid")
done
((${#carried[@]})) || { echo "pack.sh: build weft first (missing $build/cli/weft)" >&2; exit 1; }
echo "pack.sh: the package carries weft for ${carried[*]}" >&2

# The VSTest data collector, the Microsoft.Testing.Platform extension and the MSBuild task (C#),
# built for the package.
for project in collector/Weft.Collector testing-platform/Weft.TestingPlatform tasks/Weft.Tasks; do
  name=$(basename "$project")
  dotnet build "$here/$project.csproj" -c Release --artifacts-path "$stage/$name" \
    -nologo -v:q >"$stage/$name.log" 2>&1 || { cat "$stage/$name.log" >&2; exit 1; }
done
dotnet pack "$here/Weft.csproj" -o "$out" -p:WeftTools="$stage/tools" -p:Version="$version" \
  -p:WeftCollector="$stage/Weft.Collector/bin/Weft.Collector/release/Weft.Collector.dll" \
  -p:WeftTestingPlatform="$stage/Weft.TestingPlatform/bin/Weft.TestingPlatform/release/Weft.TestingPlatform.dll" \
  -p:WeftTasks="$stage/Weft.Tasks/bin/Weft.Tasks/release/Weft.Tasks.dll" \
  --artifacts-path "$stage/artifacts" -nologo -v:q >"$stage/pack.log" 2>&1 ||
  { cat "$stage/pack.log" >&2; exit 1; }
echo "$out/Weft.$version.nupkg"
