#!/usr/bin/env bash
# CoreCLR for Windows (NuGet's win-x64 runtime pack) run under wine with the Windows build's
# weft_profiler.dll as its profiler: a corpus program, framework-dependent, instrumented by the
# coverage pass as the runtime compiles it. Its output must be the expected one, the profiler
# must have rewritten its methods, and its hits must make a report (with this machine's weft).
#
#   tests/targets/wine-coreclr.sh RUNNER PROFILER.dll WEFT WORK SOURCE_DIR [C_PLUGIN.dll]
#
# With C_PLUGIN.dll (tests/plugin/abi-v1 built by MinGW), a spec names it and its pass `c-trace`:
# the program prints its lines, its runtime hook counts the compilations and the log file
# (WEFT_LOG) names the plugin; the same spec made writable by other users is refused, and then
# nothing is instrumented.
#
# The runtime comes from a self-contained publish (dotnet restores the runtime pack); its files
# are laid out as an installed .NET (WORK/dotnet: host/fxr, shared/Microsoft.NETCore.App), which
# the program's apphost finds through DOTNET_ROOT. Paths reach wine through its drive Z: (/).
set -euo pipefail
read -r -a runner <<<"${1?usage: wine-coreclr.sh RUNNER PROFILER.dll WEFT WORK SOURCE_DIR}"
profiler=$(realpath "${2:?no PROFILER.dll}")
weft=$(realpath "${3:?no WEFT}")
work=${4:?no WORK}
src=$(realpath "${5:?no SOURCE_DIR}")
program=Closures
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1

rm -rf "$work"
mkdir -p "$work"
work=$(realpath "$work")
project="$src/corpus/$program/$program.csproj"
dotnet publish "$project" -r win-x64 --self-contained -p:UseAppHost=true \
  -p:ArtifactsPath="$work/artifacts-self" -o "$work/self" -nologo -v:q >/dev/null
dotnet publish "$project" -r win-x64 --self-contained false -p:UseAppHost=true \
  -p:ArtifactsPath="$work/artifacts-app" -o "$work/app" -nologo -v:q >/dev/null
version=$(sed -n 's/.*"version": "\([0-9.]*\)".*/\1/p' "$work/self/$program.runtimeconfig.json" |
  head -n 1)
packages=$(dotnet nuget locals global-packages --list | sed 's/^global-packages: //')
pack="$packages/microsoft.netcore.app.runtime.win-x64/$version/runtimes/win-x64"
[[ -d "$pack" ]] || { echo "wine-coreclr.sh: no runtime pack at $pack" >&2; exit 1; }
root="$work/dotnet"
shared="$root/shared/Microsoft.NETCore.App/$version"
mkdir -p "$root/host/fxr/$version" "$shared"
cp "$pack"/lib/net*/* "$pack"/native/* "$shared/"
mv "$shared/hostfxr.dll" "$root/host/fxr/$version/"

winpath() { local p=${1//\//\\}; echo "Z:$p"; }
# run_program OUT LOG VARIABLE=VALUE...: the program under the profiler, its output in OUT (line
# ends as POSIX's), the profiler's messages in LOG, shown.
run_program() {
  local out=$1 log=$2 status=0
  shift 2
  env DOTNET_ROOT="$(winpath "$root")" CORECLR_ENABLE_PROFILING=1 \
    CORECLR_PROFILER='{E56F61AE-E543-4D22-8B50-7334A9E7F8D6}' \
    CORECLR_PROFILER_PATH="$(winpath "$profiler")" "$@" \
    "${runner[@]}" "./$program.exe" >"$out.crlf" 2>"$log" || status=$?
  tr -d '\r' <"$out.crlf" >"$out"
  cat "$log"
  [[ $status == 0 ]] || { echo "wine-coreclr.sh: $program.exe exited with $status" >&2; exit 1; }
}
cd "$work/app"
run_program output.txt profiler.txt WEFT_PASSES=coverage
diff output.txt "$src/corpus/$program/expected.txt" >&2 ||
  { echo "wine-coreclr.sh: the instrumented program's output differs" >&2; exit 1; }
grep -q ' [1-9][0-9]* rewritten' profiler.txt ||
  { echo "wine-coreclr.sh: the profiler rewrote nothing" >&2; exit 1; }
hits=("$program".*weft-hits)
"$weft" coverage report --map "$program.dll.coverage.json" --hits "${hits[0]}" --format text \
  -o report.txt
head -n 1 report.txt

[[ -n "${6:-}" ]] || exit 0
cp "$6" weft-c-trace.dll
cat >weft.json <<EOF
{"version": 1, "plugins": ["weft-c-trace.dll"],
 "rules": [{"match": {"assembly": "$program"},
            "passes": [{"name": "c-trace", "options": {"prefix": "ct"}}]}]}
EOF
chmod 0644 weft.json
run_program plugin-output.txt plugin-profiler.txt WEFT_SPEC="$(winpath "$work/app/weft.json")" \
  WEFT_LOG="$(winpath "$work/app/weft.log")" WEFT_C_TRACE_REPORT="$(winpath "$work/app/c-trace.txt")"
cat weft.log
grep -q 'plugin c-trace 1.0' weft.log ||
  { echo "wine-coreclr.sh: the log file does not name the plugin" >&2; exit 1; }
grep -q '^ct: enter ' plugin-output.txt && grep -q '^ct: leave ' plugin-output.txt ||
  { echo "wine-coreclr.sh: the plugin's pass printed nothing" >&2; exit 1; }
grep -v '^ct: ' plugin-output.txt | diff - "$src/corpus/$program/expected.txt" >&2 ||
  { echo "wine-coreclr.sh: the program's own output differs under the plugin" >&2; exit 1; }
grep -q '^jit [1-9]' c-trace.txt ||
  { echo "wine-coreclr.sh: the plugin's runtime hook saw no compilation" >&2; exit 1; }
echo "c-trace: $(grep -c '^ct: enter ' plugin-output.txt) entries; $(tr '\n' ' ' <c-trace.txt)"

# Other users may write the spec: refused with the reason, the program left as it was.
chmod 0666 weft.json
run_program refused-output.txt refused-profiler.txt WEFT_SPEC="$(winpath "$work/app/weft.json")"
diff refused-output.txt "$src/corpus/$program/expected.txt" >&2 ||
  { echo "wine-coreclr.sh: the program's output differs with a refused spec" >&2; exit 1; }
grep -q 'weft.json.*may be written by other users.*nothing is instrumented' refused-profiler.txt ||
  { echo "wine-coreclr.sh: the spec other users may write was not refused so" >&2; exit 1; }
