#!/usr/bin/env bash
# The weft of another platform against the development build's: the CLI's info, dump, verify,
# weave and diff on the same inputs, with the target's weft run through its runner (qemu-aarch64
# for linux-arm64, wine64 for win-x64). Standard output, standard error, exit status and every
# file written must be the same bytes.
#
#   tests/targets/compare.sh SCRATCH REFERENCE INPUT... -- RUNNER... TARGET_WEFT
#
# REFERENCE is the native weft. An INPUT is an assembly or a folder, standing for the .dll and
# .exe files under it; an INPUT ending in .snk is a strong-name key pair, with which every
# assembly is also woven and signed (the same signature bytes from both). Everything after -- is the command that runs the target's weft, the runner
# first (nothing but the executable for a target this machine runs itself). Both run in the same
# folder (SCRATCH/run, the inputs copied under in/), one after the other, on relative paths, so
# that what they print and record about paths is the same; their outputs are kept in
# SCRATCH/reference and SCRATCH/target. Exit status 0: all the same; 1: some differ (listed).
set -euo pipefail
usage="usage: tests/targets/compare.sh SCRATCH REFERENCE INPUT... -- RUNNER... TARGET_WEFT"
scratch=${1:?$usage}
reference=$(realpath "${2:?$usage}")
shift 2
inputs=()
while (($#)) && [[ $1 != -- ]]; do
  inputs+=("$(realpath "$1")")
  shift
done
[[ ${1:-} == -- ]] && (($# > 1)) && ((${#inputs[@]})) || { echo "$usage" >&2; exit 2; }
shift
target=("$@")
# The executable (the last word) found from the folder the commands run in.
target[-1]=$(realpath "${target[-1]}")

rm -rf "$scratch"
mkdir -p "$scratch/run/in"
scratch=$(cd "$scratch" && pwd)
# The inputs, under in/ by their name and the path below it.
cd "$scratch/run"
for input in "${inputs[@]}"; do
  if [[ -d $input ]]; then
    (cd "$(dirname "$input")" &&
      find "$(basename "$input")" -type f \( -name '*.dll' -o -name '*.exe' -o -name '*.pdb' \) -print0) |
      while IFS= read -r -d '' file; do
        mkdir -p "in/$(dirname "$file")"
        cp "$(dirname "$input")/$file" "in/$file"
      done
  else
    cp "$input" in/
    [[ -f ${input%.*}.pdb ]] && cp "${input%.*}.pdb" in/
  fi
done
# Both look for referenced assemblies in the same shared frameworks: this machine's .NET (a
# Windows weft under wine would not find it on its PATH).
if [[ -z "${DOTNET_ROOT:-}" ]] && command -v dotnet >/dev/null; then
  DOTNET_ROOT=$(dirname "$(realpath "$(command -v dotnet)")")
  export DOTNET_ROOT
fi
key=$(find in -maxdepth 1 -name '*.snk' | head -n 1)
# The commands run once per content (FSharp.Core.dll beside each F# program: once).
mapfile -t assemblies < <(find in -type f \( -name '*.dll' -o -name '*.exe' \) -print0 |
  xargs -0 sha256sum | LC_ALL=C sort -k2 | awk '!seen[$1]++ { print $2 }')

# One command: its output, errors and status in out/NAME.{out,err,status}.
check() {
  local name=$1
  shift
  mkdir -p "out/$(dirname "$name")"
  local status attempt
  # weft never fails without a message: a run that ends non-zero having printed nothing is the
  # runner's failure (wine64, once in about a thousand starts here), and is run again.
  for attempt in 1 2 3; do
    status=0
    "${weft[@]}" "$@" >"out/$name.out" 2>"out/$name.err" </dev/null || status=$?
    [[ $status == 0 || -s "out/$name.out" || -s "out/$name.err" ]] && break
  done
  # A Windows program's stderr is in text mode: its line ends are CRLF.
  sed -i 's/\r$//' "out/$name.err"
  echo "$status" >"out/$name.status"
}

# Every command on every input, with one weft.
run_all() {
  rm -rf out
  mkdir out
  local dll o
  for dll in "${assemblies[@]}"; do
    o=${dll#in/}
    check "$o/info" info "$dll"
    check "$o/info-json" info --json --bodies "$dll"
    check "$o/dump" dump "$dll"
    check "$o/dump-raw" dump --raw "$dll"
    check "$o/dump-source" dump --source --no-framework "$dll" -o "out/$o/dump-source.il"
    check "$o/verify" verify "$dll"
    check "$o/weave" weave "$dll" -o "out/$o/none.dll"
    check "$o/weave-single-ret" weave "$dll" -o "out/$o/single-ret.dll" --pass single-ret --verify-each
    check "$o/weave-coverage-trace" weave "$dll" -o "out/$o/coverage-trace.dll" \
      --pass coverage --pass trace --verify-each --threads 2
    check "$o/weave-span" weave "$dll" -o "out/$o/span.dll" --pass span -v
    check "$o/verify-woven" verify "out/$o/coverage-trace.dll"
    check "$o/diff" diff "$dll" "out/$o/none.dll"
    check "$o/diff-single-ret" diff "$dll" "out/$o/single-ret.dll"
    check "$o/diff-stat" diff --stat "$dll" "out/$o/coverage-trace.dll"
    check "$o/diff-json" diff --json --woven "out/$o/span.dll"
    if [[ -n $key ]]; then
      check "$o/weave-signed" weave "$dll" -o "out/$o/signed.dll" --key "$key"
      check "$o/weave-coverage-signed" weave "$dll" -o "out/$o/coverage-signed.dll" --key "$key" \
        --pass coverage
    fi
  done
}

weft=("$reference")
run_all
mv out "$scratch/reference"
weft=("${target[@]}")
run_all
mv out "$scratch/target"

cd "$scratch"
files=$(find reference -type f | wc -l)
if diff -r reference target >diff.txt; then
  echo "compare.sh: ${#assemblies[@]} inputs, $files files, the same from both"
  exit 0
fi
echo "compare.sh: ${#assemblies[@]} inputs, $files files; these differ ($scratch/diff.txt):"
diff -rq reference target | head -n 40 || true
head -n 60 diff.txt | cut -c 1-300
exit 1
