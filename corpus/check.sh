#!/usr/bin/env bash
# Builds the corpus and checks every program's stdout against its expected.txt.
#
#   corpus/check.sh [--no-build] [--update] [ARTIFACTS_DIR]
#
# ARTIFACTS_DIR defaults to <repo>/build/corpus-artifacts and must be absolute
# if given. --update rewrites expected.txt from the current output instead of
# comparing (review the diff before committing). Exit status is non-zero if
# any program fails.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build=1
update=0
artifacts=""
for arg in "$@"; do
  case "$arg" in
    --no-build) build=0 ;;
    --update) update=1 ;;
    -*) echo "unknown option: $arg" >&2; exit 2 ;;
    *) artifacts="$arg" ;;
  esac
done
if [[ -z "$artifacts" ]]; then
  artifacts="$(cd "$here/.." && pwd)/build/corpus-artifacts"
fi
case "$artifacts" in
  /*) ;;
  *) echo "ARTIFACTS_DIR must be an absolute path" >&2; exit 2 ;;
esac

if [[ $build == 1 ]]; then
  dotnet build "$here/corpus.proj" -p:ArtifactsPath="$artifacts" -m -nologo -v:q
fi

passed=0
failed=0
for proj in "$here"/*/*.csproj "$here"/*/*.fsproj; do
  name="$(basename "${proj%.*proj}")"
  [[ $name == WebApi ]] && continue # a server, for bench/web.sh
  dir="$(dirname "$proj")"
  dll="$artifacts/bin/$name/release/$name.dll"
  out="$(mktemp)"
  rc=0
  dotnet "$dll" >"$out" 2>/dev/null || rc=$?
  if [[ $update == 1 ]]; then
    if [[ $rc == 0 ]]; then
      cp "$out" "$dir/expected.txt"
      echo "updated $name"
      passed=$((passed + 1))
    else
      echo "FAIL $name (exit code $rc, expected.txt not updated)"
      failed=$((failed + 1))
    fi
  elif [[ $rc == 0 ]] && cmp -s "$out" "$dir/expected.txt"; then
    echo "PASS $name"
    passed=$((passed + 1))
  else
    echo "FAIL $name (exit code $rc)"
    diff -u "$dir/expected.txt" "$out" | head -20 || true
    failed=$((failed + 1))
  fi
  rm -f "$out"
done
echo "$passed passed, $failed failed"
[[ $failed == 0 ]]
