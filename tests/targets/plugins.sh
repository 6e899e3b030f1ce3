#!/usr/bin/env bash
# Plugins of the C ABI in another platform's weft: each plugin built for the target (a .dll for
# win-x64) loaded by the target's weft, and the same plugin built here loaded by the development
# build's weft, weave the same input with the same pass. The woven files (assembly, PDB, the
# plugin's side files), standard output, standard error and exit status must be the same bytes.
#
#   tests/targets/plugins.sh SCRATCH INPUT REFERENCE -- RUNNER... TARGET_WEFT -- PASS HERE THERE...
#
# REFERENCE is the native weft; after the first -- the command that runs the target's weft (the
# runner first); after the second, triples: a pass (with its options), the plugin built here,
# the plugin built for the target. Both wefts run in the same folder (SCRATCH/run) on relative
# paths, the plugins copied beside the input under their own names.
set -euo pipefail
usage="usage: tests/targets/plugins.sh SCRATCH INPUT REFERENCE -- RUNNER... TARGET_WEFT -- PASS HERE THERE..."
scratch=${1:?$usage}
input=$(realpath "${2:?$usage}")
reference=$(realpath "${3:?$usage}")
shift 3
[[ ${1:-} == -- ]] || { echo "$usage" >&2; exit 2; }
shift
target=()
while (($#)) && [[ $1 != -- ]]; do
  target+=("$1")
  shift
done
[[ ${1:-} == -- ]] && ((${#target[@]})) && (($# > 3)) || { echo "$usage" >&2; exit 2; }
shift
target[-1]=$(realpath "${target[-1]}")

rm -rf "$scratch"
mkdir -p "$scratch/run/here" "$scratch/run/there"
scratch=$(cd "$scratch" && pwd)
cd "$scratch/run"
name=$(basename "$input")
cp "$input" .
[[ -f ${input%.*}.pdb ]] && cp "${input%.*}.pdb" .
if [[ -z "${DOTNET_ROOT:-}" ]] && command -v dotnet >/dev/null; then
  DOTNET_ROOT=$(dirname "$(realpath "$(command -v dotnet)")")
  export DOTNET_ROOT
fi

failed=0
while (($# >= 3)); do
  pass=$1 here=$2 there=$3
  shift 3
  cp "$here" here/ && cp "$there" there/
  tag=${pass%%:*}
  for side in here there; do
    plugin=$side/$(basename "$([[ $side == here ]] && echo "$here" || echo "$there")")
    runner=("$reference")
    [[ $side == there ]] && runner=("${target[@]}")
    mkdir -p "$side/$tag"
    set +e
    "${runner[@]}" weave "$name" -o "$side/$tag/$name" --load "$plugin" --pass "$pass" \
      >"$side/$tag.out" 2>"$side/$tag.err"
    echo $? >"$side/$tag.status"
    set -e
  done
  # The plugin's file name differs (.so, .dll), and so does the folder each side writes to:
  # messages are compared without them.
  for f in out err; do
    sed -i "s#here/#SIDE/#g; s#there/#SIDE/#g; s#SIDE/[^' ]*\.\(so\|dll\)#PLUGIN#g" \
      "here/$tag.$f" "there/$tag.$f"
  done
  if [[ $(cat "here/$tag.status") != 0 ]]; then
    echo "$pass: the reference weft failed: $(cat "here/$tag.err")" >&2
    failed=1
    continue
  fi
  for f in "$tag.out" "$tag.err" "$tag.status"; do
    cmp -s "here/$f" "there/$f" || { echo "$pass: $f differs" >&2; diff "here/$f" "there/$f" | head -20 >&2 || true; failed=1; }
  done
  for f in $(cd "here/$tag" && ls); do
    cmp -s "here/$tag/$f" "there/$tag/$f" || { echo "$pass: $f differs" >&2; failed=1; }
  done
  echo "$pass: $(cd "here/$tag" && ls | tr '\n' ' ')the same from both"
done
exit $failed
