#!/usr/bin/env bash
# weft's GoogleTest suites that need no .NET runtime (the unit tests, the profiling ABI's, the
# fuzz regressions), built in a platform's build folder (./dev build --target T) and run through
# the platform's runner.
#
#   tests/targets/unit.sh TARGET_BUILD -- RUNNER...
#
# The build folder is configured with WEFT_BUILD_TESTS=ON and only these suites are built; the
# next ./dev build --target T turns its tests off again.
set -euo pipefail
usage="usage: tests/targets/unit.sh TARGET_BUILD -- RUNNER..."
build=${1:?$usage}
[[ ${2:-} == -- ]] || { echo "$usage" >&2; exit 2; }
shift 2
runner=("$@")
suites=(weft_unit_tests weft_profiler_abi_tests weft_fuzz_regression_tests)
cmake "$build" -DWEFT_BUILD_TESTS=ON >/dev/null
cmake --build "$build" --target "${suites[@]}" -j"$(nproc)" >"$build/unit-tests.log" 2>&1 ||
  { tail -n 40 "$build/unit-tests.log"; exit 1; }
failed=0
for suite in "${suites[@]}"; do
  echo "== $suite"
  "${runner[@]}" "$build/tests/$suite" --gtest_brief=1 || failed=1
done
exit "$failed"
