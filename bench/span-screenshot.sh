#!/usr/bin/env bash
# Photographs the Aspire dashboard's view of one trace made by weft's spans, with Debian's
# headless Chromium (apt-get install chromium). Not run by CI.
#
#   bench/span-screenshot.sh [BUILD_DIR] [OUTPUT.png] [SCENE]
#
# SCENE is
#   sdk       (default; docs/images/span-trace.png) tests/otel-app, its type Shop woven with `span`
#             and exported by the app's own OpenTelemetry SDK (AddSource "Weft");
#   services  (docs/images/span-services.png) tests/services, unwoven, its front and back run
#             under `weft run --otlp`, exported by the exporter weft carries: one request to the
#             front, one trace across both processes.
# BUILD_DIR is a build tree where the tests built tests/otel-app (otelapp.build) and restored the
# dashboard (aspire.restore), default build/.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
scene=${3:-sdk}
case $scene in
  sdk) out=${2:-$repo/docs/images/span-trace.png} ;;
  services) out=${2:-$repo/docs/images/span-services.png} ;;
  *) echo "unknown scene '$scene' (sdk, services)" >&2; exit 2 ;;
esac
weft=$build/cli/weft
chromium=$(command -v chromium || command -v chromium-browser || true)
packages=$(dotnet nuget locals global-packages --list | sed 's/^global-packages: //')
dashboard=$packages/aspire.dashboard.sdk.linux-x64/13.6.5/tools/Aspire.Dashboard
[ -x "$weft" ] || { echo "no weft in $build" >&2; exit 1; }
[ -n "$chromium" ] || { echo "no chromium (apt-get install chromium)" >&2; exit 1; }
[ -x "$dashboard" ] || { echo "no Aspire dashboard (ctest -R aspire.restore)" >&2; exit 1; }

work=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT
ui=18931 otlp=18932
HOME=$work ASPNETCORE_URLS=http://127.0.0.1:$ui \
  ASPIRE_DASHBOARD_OTLP_HTTP_ENDPOINT_URL=http://127.0.0.1:$otlp \
  ASPIRE_DASHBOARD_UNSECURED_ALLOW_ANONYMOUS=true ASPIRE_ALLOW_UNSECURED_TRANSPORT=true \
  "$dashboard" >"$work/dashboard.log" 2>&1 &
pids+=($!)
until curl -sf "http://127.0.0.1:$ui/api/telemetry/traces" >/dev/null; do sleep 0.2; done

# The trace id of the span named $1.
trace_of() {
  curl -sf "http://127.0.0.1:$ui/api/telemetry/traces" | python3 -c '
import json, sys
for rs in json.load(sys.stdin)["data"]["resourceSpans"]:
    for ss in rs["scopeSpans"]:
        for s in ss["spans"]:
            if s["name"] == sys.argv[1]:
                print(s["traceId"])
                sys.exit()' "$1"
}

sdk_scene() {
  local app=$build/otelapp/bin/OtelApp/release
  [ -f "$app/OtelApp.dll" ] || { echo "tests/otel-app is not built (ctest -R otelapp.build)" >&2; exit 1; }
  cp -r "$app" "$work/app"
  echo '{"version": 1, "rules": [{"match": {"type": "Shop"}, "passes": ["span"]}]}' >"$work/weft.json"
  "$weft" weave "$app/OtelApp.dll" -o "$work/app/OtelApp.dll" --spec "$work/weft.json" >/dev/null
  OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$otlp OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf \
    dotnet "$work/app/OtelApp.dll" >/dev/null
  sleep 1
  # The trace of the app's request span (Shop's constructor, called before it, is one of its own).
  trace=$(trace_of request)
}

services_scene() {
  dotnet build "$repo/tests/services/Services.csproj" -c Release -p:WeftEnabled=false \
    --artifacts-path "$work/services" -nologo -v:q >/dev/null
  local dll=$work/services/bin/Services/release/Services.dll
  for service in "back 18941" "front 18942 http://127.0.0.1:18941"; do
    set -- $service
    OTEL_SERVICE_NAME=$1 OTEL_BSP_SCHEDULE_DELAY=200 "$weft" run --spec "$repo/tests/services/weft.json" \
      --otlp "http://127.0.0.1:$otlp" --log "$work/$1.log" -- dotnet "$dll" "$@" >/dev/null 2>&1 &
    pids+=($!)
    until curl -sf "http://127.0.0.1:$2/health" >/dev/null; do sleep 0.2; done
  done
  curl -sf http://127.0.0.1:18942/order/7 >/dev/null
  sleep 2
  trace=$(trace_of Orders.Checkout)
}

"${scene}_scene"
[ -n "$trace" ] || { echo "the dashboard received no trace" >&2; cat "$work/dashboard.log" >&2; exit 1; }
# A Blazor page renders after it loads: Chromium is driven through its DevTools protocol
# (bench/screenshot) and photographs the page once it has rendered.
dotnet build "$repo/bench/screenshot/Screenshot.csproj" --artifacts-path "$work/camera" -nologo -v:q >/dev/null
dotnet "$work/camera/bin/Screenshot/debug/Screenshot.dll" "$chromium" \
  "http://127.0.0.1:$ui/traces/detail/$trace" "$out" 1400 700 8
echo "wrote $out"
