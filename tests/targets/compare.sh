#!/usr/bin/env bash
# Runs another platform's weft (through the program that runs it here: wine64, qemu-user) and
# this build's weft on the same inputs, and checks that they give the same bytes: standard output,
# exit status, standard error (line ends aside: a Windows program's stderr is in text mode) and
# every file written (woven assemblies and their PDBs, coverage maps, signed assemblies, dumps).
#
#   tests/targets/compare.sh RUNNER TARGET_WEFT HOST_WEFT WORK CORPUS_BIN [SN_CHECK.dll]
#
# RUNNER      the command that runs TARGET_WEFT, split into words ("wine64", "qemu-aarch64 -L
#             SYSROOT"; "" for none)
# WORK        a folder made anew: the inputs are copied to WORK/in, each weft runs in a folder of
#             its own (WORK/host, WORK/target) with the same relative paths, so that the paths in
#             messages and outputs are spelled the same
# CORPUS_BIN  the corpus the development build compiles (ctest fixture corpus.build): every
#             PROGRAM/release/PROGRAM.dll in it is an input
# SN_CHECK    tests/sn-check built (fixture sn): makes the strong-name key that signs with both
set -uo pipefail
read -r -a runner <<<"${1?usage: compare.sh RUNNER TARGET_WEFT HOST_WEFT WORK CORPUS_BIN [SN_CHECK.dll]}"
target=$(realpath "${2:?no TARGET_WEFT}")
host=$(realpath "${3:?no HOST_WEFT}")
work=${4:?no WORK}
corpus=$(realpath "${5:?no CORPUS_BIN}")
sn_check=${6:-}

rm -rf "$work"
mkdir -p "$work/in" "$work/host/out" "$work/target/out"
work=$(realpath "$work")
programs=()
for dll in "$corpus"/*/release/*.dll; do
  name=$(basename "$(dirname "$(dirname "$dll")")")
  [[ $(basename "$dll") == "$name.dll" ]] || continue
  cp -r "$(dirname "$dll")" "$work/in/$name"
  programs+=("$name")
done
((${#programs[@]})) || { echo "compare.sh: no programs in $corpus" >&2; exit 1; }
export DOTNET_CLI_TELEMETRY_OPTOUT=1
key=
if [[ -n "$sn_check" ]]; then
  dotnet "$sn_check" keygen "$work/in/key.snk" 1024 >/dev/null || exit 1
  key=../in/key.snk
fi

# The first run of an emulator may set itself up (wine makes its prefix) and say so.
(cd "$work/target" && "${runner[@]}" "$target" --version >/dev/null 2>&1)

cases=0 same=0 retried=0
failed=()
# check NAME ARGS...: runs both, compares what they printed and their exit status.
check() {
  local name=$1
  shift
  cases=$((cases + 1))
  (cd "$work/host" && "$host" "$@" >"../host.$name.out" 2>"../host.$name.err"; echo $? >"../host.$name.rc")
  # weft never fails without a message: a run that ends non-zero having printed nothing is the
  # runner's failure (wine, once in about a thousand starts here), and is run again.
  local attempt
  for attempt in 1 2 3; do
    (cd "$work/target" && "${runner[@]}" "$target" "$@" >"../target.$name.out" 2>"../target.$name.err"
     echo $? >"../target.$name.rc")
    if [[ $(cat "$work/target.$name.rc") == 0 || -s "$work/target.$name.out" ||
          -s "$work/target.$name.err" ]]; then
      break
    fi
    retried=$((retried + 1))
  done
  tr -d '\r' <"$work/target.$name.err" >"$work/target.$name.err.lf"
  if cmp -s "$work/host.$name.out" "$work/target.$name.out" &&
     cmp -s "$work/host.$name.rc" "$work/target.$name.rc" &&
     cmp -s "$work/host.$name.err" "$work/target.$name.err.lf"; then
    same=$((same + 1))
  else
    failed+=("$name: weft $*")
    {
      echo "== $name differs: weft $*"
      echo "   exit status: host $(cat "$work/host.$name.rc"), target $(cat "$work/target.$name.rc")"
      diff "$work/host.$name.out" "$work/target.$name.out" | head -n 10
      diff "$work/host.$name.err" "$work/target.$name.err.lf" | head -n 10
    } >&2
  fi
}

# Both look for referenced assemblies in the same shared frameworks: this machine's .NET, which a
# Windows weft under wine would not find on its PATH.
if [[ -z "${DOTNET_ROOT:-}" ]] && command -v dotnet >/dev/null; then
  DOTNET_ROOT=$(dirname "$(realpath "$(command -v dotnet)")")
  export DOTNET_ROOT
fi
for p in "${programs[@]}"; do
  in=../in/$p/$p.dll
  check "$p.info" info "$in"
  check "$p.info-json" info --json --bodies "$in"
  check "$p.dump" dump "$in"
  check "$p.dump-raw" dump --raw "$in"
  check "$p.dump-file" dump "$in" -o "out/$p.il"
  check "$p.dump-source" dump --source "$in" --method 'Main'
  check "$p.verify" verify "$in"
  check "$p.weave" weave -q "$in" -o "out/$p.dll" --pass coverage --pass trace --pass single-ret
  check "$p.round-trip" weave -q "$in" -o "out/$p.same.dll"
  check "$p.verify-woven" verify "out/$p.dll"
  check "$p.dump-woven" dump "out/$p.dll"
  check "$p.diff" diff "$in" "out/$p.dll"
  check "$p.diff-stat" diff --stat "$in" "out/$p.dll"
  check "$p.diff-json" diff --json "$in" "out/$p.dll"
  check "$p.diff-woven" diff --woven "out/$p.dll"
  if [[ -n "$key" ]]; then
    check "$p.sign" weave -q "$in" -o "out/$p.signed.dll" --key "$key" --pass coverage
    check "$p.sign-round-trip" weave -q "$in" -o "out/$p.signed-same.dll" --key "$key"
  fi
done
check bad-input info ../in/missing.dll
check usage weave

# Every file either wrote, byte for byte.
(cd "$work/host/out" && find . -type f | sort) >"$work/host.files"
(cd "$work/target/out" && find . -type f | sort) >"$work/target.files"
if ! cmp -s "$work/host.files" "$work/target.files"; then
  failed+=("the files written")
  { echo "== the files written differ:"; diff "$work/host.files" "$work/target.files"; } >&2
fi
files=0 files_same=0
while read -r f; do
  [[ -f "$work/target/out/$f" ]] || continue
  files=$((files + 1))
  if cmp -s "$work/host/out/$f" "$work/target/out/$f"; then
    files_same=$((files_same + 1))
  else
    failed+=("file $f")
    echo "== out/$f differs: $(cmp "$work/host/out/$f" "$work/target/out/$f" 2>&1 | head -n 1)" >&2
  fi
done <"$work/host.files"

echo "compare.sh: ${#programs[@]} programs; $same of $cases commands gave the same output, status and messages; $files_same of $files files the same bytes; $retried silent runner failures run again"
((${#failed[@]} == 0)) || { printf 'differs: %s\n' "${failed[@]}" >&2; exit 1; }
