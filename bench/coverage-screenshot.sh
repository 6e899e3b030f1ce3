#!/usr/bin/env bash
# Makes docs/images/coverage-report.png: ReportGenerator's HTML page of corpus/Exceptions'
# Program class, from weft's Cobertura report of one run of the program woven with `coverage`,
# photographed by Debian's headless Chromium and cut with ImageMagick (apt-get install chromium
# imagemagick): the page's summary (lines and branches) above its source lines 378-428 (hits per
# line, uncovered lines, branch markers). Not run by CI.
#
#   bench/coverage-screenshot.sh [BUILD_DIR] [OUTPUT.png]
#
# BUILD_DIR is a build tree with weft and the corpus built (the corpus.build test), default
# build/; ReportGenerator is the one the reportgenerator.restore test installs there (installed
# now if missing). The cut is measured for a page 1280 pixels wide: look at the picture.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
out=${2:-$repo/docs/images/coverage-report.png}
weft=$build/cli/weft
rg=$build/reportgenerator/reportgenerator
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -x "$weft" ] || { echo "no weft in $build" >&2; exit 1; }
[ -n "$chromium" ] || { echo "no chromium (apt-get install chromium)" >&2; exit 1; }
command -v convert >/dev/null || { echo "no ImageMagick (apt-get install imagemagick)" >&2; exit 1; }
dll=$(ls "$build"/corpus/bin/Exceptions/*/Exceptions.dll 2>/dev/null | head -1)
[ -n "$dll" ] || { echo "corpus/Exceptions is not built in $build (ctest -R corpus.build)" >&2; exit 1; }
if [ ! -x "$rg" ]; then
  dotnet tool install dotnet-reportgenerator-globaltool --version 5.6.0 \
    --tool-path "$build/reportgenerator" >/dev/null
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$weft" weave "$dll" -o "$work/Exceptions.dll" --pass coverage >/dev/null
cp "$(dirname "$dll")/Exceptions.runtimeconfig.json" "$work/"
WEFT_COVERAGE_FILE="$work/{assembly}.weft-hits" dotnet "$work/Exceptions.dll" >/dev/null
"$weft" coverage report --map "$work/Exceptions.dll.coverage.json" \
  --hits "$work/Exceptions.weft-hits" --format cobertura -o "$work/report/"
# The PDB's paths are the deterministic build's /_/corpus/...: the repository holds the sources.
"$rg" "-reports:$work/report/coverage.cobertura.xml" "-targetdir:$work/html" -reporttypes:Html \
  "-sourcedirs:$repo" -verbosity:Warning
# The whole page (its source table is about 22 pixels a line, line 1 at y=1409), then two cuts.
"$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,12000 \
  "--screenshot=$work/page.png" "file://$work/html/Exceptions_Program.html" 2>/dev/null
convert "$work/page.png" -crop 1280x398+0+0 +repage "$work/summary.png"
convert "$work/page.png" -crop 1280x1136+0+9689 +repage "$work/lines.png"
convert "$work/summary.png" "$work/lines.png" -append "$out"
echo "wrote $out"
