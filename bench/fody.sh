#!/usr/bin/env bash
# MethodTimer two ways in `dotnet build` of tests/csharp-passes/Sample: Fody with an in-solution
# weaver (bench/fody/Weavers, Mono.Cecil) and the Weft package with the C# pass
# examples/csharp/MethodTimer (NativeAOT). Each build five times after touching the source; the
# median time of the weaving step as MSBuild's performance summary reports it (Fody.WeavingTask,
# the WeftWeave target), and whether the two programs print the same MethodTimer lines.
#
#   bench/fody.sh BUILD_DIR      (after the tests' package.pack and csharp-passes steps, which
#                                 make the Weft package and MethodTimer.so)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "${1:?usage: bench/fody.sh BUILD_DIR}" && pwd)
plugin=$build/csharp-passes/MethodTimer/MethodTimer.so
[[ -f $plugin && -d $build/package-test/nupkg ]] ||
  { echo "fody.sh: run ctest -R 'package.pack|csharp-passes' in $build first" >&2; exit 1; }
version=$(sed -n 's/^project(weft VERSION \([0-9.]*\).*/\1/p' "$here/../CMakeLists.txt")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -R "$here/fody/." "$work/"
source=$(realpath "$here/../tests/csharp-passes/Sample/Program.cs")
sed -i "s#../../../tests/csharp-passes/Sample/Program.cs#$source#" "$work"/*/*.csproj
printf '{"version": 1, "plugins": ["%s"], "rules": [{"match": {"assembly": "Sample"}, "passes": ["method-timer"]}]}\n' \
  "$plugin" >"$work/WeftSample/weft.json"
weft_args=(-p:WeftVersion="$version" -p:RestoreAdditionalProjectSources="$build/package-test/nupkg"
  -p:RestorePackagesPath="$work/packages")

# The weaving step's milliseconds in one build of PROJECT (after touching the source).
step() {
  local dir=$1 pattern=$2
  shift 2
  touch "$work/$dir"/*.csproj
  (cd "$work/$dir" && dotnet build -nologo -v:q -clp:PerformanceSummary "$@" 2>&1) |
    awk -v p="$pattern" '$0 ~ p { print $1; exit }'
}
median() { printf '%s\n' "$@" | sort -n | sed -n 3p; }

step FodySample 'Fody.WeavingTask' >/dev/null
step WeftSample ' WeftWeave ' "${weft_args[@]}" >/dev/null
fody=() weft=()
for _ in 1 2 3 4 5; do
  fody+=("$(step FodySample 'Fody.WeavingTask' --no-incremental)")
  weft+=("$(step WeftSample ' WeftWeave ' --no-incremental "${weft_args[@]}")")
done
lines() { dotnet "$work/$1/bin/Debug/net10.0/Sample.dll" | sed -n 's/^\(MethodTimer: [^ ]*\) .*/\1/p' | sort; }
same=$([[ "$(lines FodySample)" == "$(lines WeftSample)" ]] && echo "the same" || echo "DIFFERENT")
f=$(median "${fody[@]}") w=$(median "${weft[@]}")
echo "dotnet build of tests/csharp-passes/Sample, MethodTimer's weave, median of 5:"
echo "  Fody (in-solution weaver, Mono.Cecil)    $f ms   (${fody[*]})"
echo "  weft (Weft package, C# NativeAOT pass)   $w ms   (${weft[*]})"
echo "  Fody/weft: $(echo "scale=1; $f / $w" | bc)x; the programs' MethodTimer lines: $same"
