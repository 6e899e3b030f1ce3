#!/usr/bin/env bash
# Makes docs/images/span-trace.png: the Aspire dashboard's view of one trace of tests/otel-app,
# its type Shop woven with `span` and exported by the app's own OpenTelemetry SDK (AddSource
# "Weft"), photographed by Debian's headless Chromium (apt-get install chromium). Not run by CI.
#
#   bench/span-screenshot.sh [BUILD_DIR] [OUTPUT.png]
#
# BUILD_DIR is a build tree where the tests built tests/otel-app (otelapp.build) and restored the
# dashboard (aspire.restore), default build/.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
out=${2:-$repo/docs/images/span-trace.png}
weft=$build/cli/weft
chromium=$(command -v chromium || command -v chromium-browser || true)
packages=$(dotnet nuget locals global-packages --list | sed 's/^global-packages: //')
dashboard=$packages/aspire.dashboard.sdk.linux-x64/13.6.5/tools/Aspire.Dashboard
app=$build/otelapp/bin/OtelApp/release
[ -x "$weft" ] || { echo "no weft in $build" >&2; exit 1; }
[ -n "$chromium" ] || { echo "no chromium (apt-get install chromium)" >&2; exit 1; }
[ -x "$dashboard" ] || { echo "no Aspire dashboard (ctest -R aspire.restore)" >&2; exit 1; }
[ -f "$app/OtelApp.dll" ] || { echo "tests/otel-app is not built (ctest -R otelapp.build)" >&2; exit 1; }

work=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
cp -r "$app" "$work/app"
echo '{"version": 1, "rules": [{"match": {"type": "Shop"}, "passes": ["span"]}]}' >"$work/weft.json"
"$weft" weave "$app/OtelApp.dll" -o "$work/app/OtelApp.dll" --spec "$work/weft.json" >/dev/null
ui=18931 otlp=18932
HOME=$work ASPNETCORE_URLS=http://127.0.0.1:$ui \
  ASPIRE_DASHBOARD_OTLP_HTTP_ENDPOINT_URL=http://127.0.0.1:$otlp \
  ASPIRE_DASHBOARD_UNSECURED_ALLOW_ANONYMOUS=true ASPIRE_ALLOW_UNSECURED_TRANSPORT=true \
  "$dashboard" >"$work/dashboard.log" 2>&1 &
pid=$!
until curl -sf "http://127.0.0.1:$ui/api/telemetry/traces" >/dev/null; do sleep 0.2; done
OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$otlp OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf \
  dotnet "$work/app/OtelApp.dll" >/dev/null
sleep 1
# The trace of the app's request span (Shop's constructor, called before it, is a trace of its own).
trace=$(curl -sf "http://127.0.0.1:$ui/api/telemetry/traces" | python3 -c '
import json, sys
for rs in json.load(sys.stdin)["data"]["resourceSpans"]:
    for ss in rs["scopeSpans"]:
        for s in ss["spans"]:
            if s["name"] == "request":
                print(s["traceId"])')
[ -n "$trace" ] || { echo "the dashboard received no trace" >&2; cat "$work/dashboard.log" >&2; exit 1; }
# A Blazor page renders after it loads: Chromium is driven through its DevTools protocol
# (bench/screenshot) and photographs the page once it has rendered.
dotnet build "$repo/bench/screenshot/Screenshot.csproj" --artifacts-path "$work/camera" -nologo -v:q >/dev/null
dotnet "$work/camera/bin/Screenshot/debug/Screenshot.dll" "$chromium" \
  "http://127.0.0.1:$ui/traces/detail/$trace" "$out" 1400 700 8
echo "wrote $out"
