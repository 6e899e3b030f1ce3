#!/usr/bin/env bash
# A minimal API under load (corpus/WebApi: GET /search filters 2,000 products), beside itself
# instrumented, in one run: wrk (2 threads, 16 connections on loopback) for 5 s after 2 s of
# warm-up, each configuration in turn, two rounds; requests per second of each round.
#   - unwoven;
#   - the app's assembly woven offline with `trace` (timeline mode: every call on the timeline, up
#     to its 1,000,000-call limit; and summary mode: counts and sampled times), with `trace` on
#     the request's own method only (a spec naming Catalog.Search: one call a request), and with
#     `coverage`; and, beside it, instrumented by coverlet.msbuild's own task
#     (bench/peers/coverlet-instrument.sh);
#   - under `weft run` with a tracepoint on Catalog.Search (query, limit and the result, objects
#     one level deep), enabled and disabled;
#   - under `weft run --gc informational` (the GC callbacks and an EventPipe session);
#   - spans exported over OTLP/HTTP to the Aspire dashboard (started here; restored by the
#     tests' aspire.restore): the app woven with `span` on Catalog.Search and exported by the
#     exporter the module carries, beside the app instrumented by hand (bench/peers/WebApiOtel:
#     a `StartActivity` in Search) and exported by the OpenTelemetry SDK; both send ASP.NET
#     Core's request span and Search's, with the SDK's batching defaults.
# The server and wrk share this machine's cores (and, for the spans, with the dashboard).
#
#   bench/web.sh [BUILD_DIR]      (default: build; needs wrk: ./dev setup installs it)
#
# WEFT_BENCH_ROUNDS (default 2) sets the rounds; WEFT_WEB_ONLY, a regular expression, keeps the
# configurations whose names match (the unwoven app always runs). WEFT_BENCH_BEFORE, another
# weft executable (an earlier build), adds the app woven with `coverage` by it ("woven with
# coverage, before"), to compare two builds in one run. Each line ends with the median round and
# its change from the unwoven app's median, then the server's CPU time a request (user and
# system, from /proc, of the server and its children; median of the rounds): on a machine other
# work shares, a steadier figure than requests per second.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$(cd "${1:-$here/../build}" && pwd)"
weft="$build/cli/weft"
command -v wrk >/dev/null || { echo "wrk is needed (./dev setup installs it)" >&2; exit 1; }
[[ -x "$weft" ]] || { echo "missing $weft: build weft first" >&2; exit 1; }
out="$(mktemp -d)"
server=""
dashboard_pid=""
trap '[[ -n "$server" ]] && kill "$server" 2>/dev/null; [[ -n "$dashboard_pid" ]] && kill "$dashboard_pid";
  rm -rf "$out"' EXIT
dotnet build "$here/../corpus/WebApi/WebApi.csproj" -c Release --artifacts-path "$out/build" -nologo -v:q \
  >/dev/null
app="$out/build/bin/WebApi/release"
for woven in trace=trace trace-summary=trace:mode=summary coverage=coverage; do
  dir="$out/${woven%%=*}"
  cp -r "$app" "$dir"
  "$weft" weave "$app/WebApi.dll" -o "$dir/WebApi.dll" --pass "${woven#*=}" >/dev/null
done
cp -r "$app" "$out/coverlet"
"$here/peers/coverlet-instrument.sh" "$out/coverlet/WebApi.dll" "$out/coverlet-work"
if [[ -n "${WEFT_BENCH_BEFORE:-}" ]]; then
  cp -r "$app" "$out/coverage-before"
  "$WEFT_BENCH_BEFORE" weave "$app/WebApi.dll" -o "$out/coverage-before/WebApi.dll" --pass coverage \
    >/dev/null
fi
echo '{"version": 1, "rules": [{"match": {"type": "Catalog", "method": "Search"}, "passes": ["trace"]}]}' \
  >"$out/search.json"
cp -r "$app" "$out/trace-search"
"$weft" weave "$app/WebApi.dll" -o "$out/trace-search/WebApi.dll" --spec "$out/search.json" >/dev/null
tracepoint() { # NAME ENABLED
  echo "{\"version\": 1, \"rules\": [], \"tracepoints\": [{\"name\": \"search\", \"match\": {
    \"assembly\": \"WebApi\", \"type\": \"Catalog\", \"method\": \"Search\"}, \"enabled\": $2}]}" \
    >"$out/$1.json"
}
tracepoint on true
tracepoint off false
echo '{"version": 1, "rules": [{"match": {"type": "Catalog", "method": "Search"}, "passes": ["span"]}]}' \
  >"$out/span.json"
cp -r "$app" "$out/span"
"$weft" weave "$app/WebApi.dll" -o "$out/span/WebApi.dll" --spec "$out/span.json" >/dev/null
dotnet build "$here/peers/WebApiOtel/WebApiOtel.csproj" -c Release --artifacts-path "$out/otel" -nologo \
  -v:q >/dev/null
packages=$(dotnet nuget locals global-packages --list | sed 's/^global-packages: //')
dashboard=$packages/aspire.dashboard.sdk.linux-x64/13.6.5/tools/Aspire.Dashboard
otlp=""
if [[ -x "$dashboard" && ( "span on Search, weft's exporter" =~ ${WEFT_WEB_ONLY:-.} ||
  "span by hand, OpenTelemetry SDK" =~ ${WEFT_WEB_ONLY:-.} ) ]]; then
  otlp=http://127.0.0.1:5389
  mkdir -p "$out/dashboard"
  HOME=$out/dashboard ASPNETCORE_URLS=http://127.0.0.1:5390 ASPIRE_DASHBOARD_OTLP_HTTP_ENDPOINT_URL=$otlp \
    ASPIRE_DASHBOARD_UNSECURED_ALLOW_ANONYMOUS=true ASPIRE_ALLOW_UNSECURED_TRANSPORT=true \
    "$dashboard" >"$out/dashboard.log" 2>&1 &
  dashboard_pid=$!
  until curl -sf http://127.0.0.1:5390/api/telemetry/traces >/dev/null; do sleep 0.2; done
fi
port=5391
declare -A configs=(
  ["unwoven"]="dotnet $app/WebApi.dll"
  ["woven with trace"]="env WEFT_TRACE_FILE=$out/trace.json dotnet $out/trace/WebApi.dll"
  ["woven with trace, summary"]="env WEFT_TRACE_FILE=$out/trace.json dotnet $out/trace-summary/WebApi.dll"
  ["woven with trace on Search only"]="env WEFT_TRACE_FILE=$out/trace.json dotnet $out/trace-search/WebApi.dll"
  ["woven with coverage"]="env WEFT_COVERAGE_FILE=$out/hits dotnet $out/coverage/WebApi.dll"
  ["coverlet.msbuild coverage"]="dotnet $out/coverlet/WebApi.dll"
  ["woven with coverage, before"]="env WEFT_COVERAGE_FILE=$out/hits-before dotnet $out/coverage-before/WebApi.dll"
  ["tracepoint on Search, enabled"]="$weft run --spec $out/on.json --log $out/log --output-dir $out -- dotnet $app/WebApi.dll"
  ["tracepoint on Search, disabled"]="$weft run --spec $out/off.json --log $out/log --output-dir $out -- dotnet $app/WebApi.dll"
  ["--gc informational"]="$weft run --gc informational --log $out/log --output-dir $out -- dotnet $app/WebApi.dll"
  ["span on Search, weft's exporter"]="env OTEL_EXPORTER_OTLP_ENDPOINT=$otlp OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf OTEL_SERVICE_NAME=webapi-weft dotnet $out/span/WebApi.dll"
  ["span by hand, OpenTelemetry SDK"]="env OTEL_EXPORTER_OTLP_ENDPOINT=$otlp OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf OTEL_SERVICE_NAME=webapi-sdk dotnet $out/otel/bin/WebApiOtel/release/WebApi.dll"
)
order=()
for name in "unwoven" "woven with trace" "woven with trace, summary" "woven with trace on Search only" \
  "woven with coverage" "woven with coverage, before" "coverlet.msbuild coverage" "tracepoint on Search, enabled" "tracepoint on Search, disabled" \
  "--gc informational" "span on Search, weft's exporter" "span by hand, OpenTelemetry SDK"; do
  [[ $name == *before && -z "${WEFT_BENCH_BEFORE:-}" ]] && continue
  [[ $name == span* && -z "$otlp" ]] && continue
  if [[ $name == unwoven || $name =~ ${WEFT_WEB_ONLY:-.} ]]; then order+=("$name"); fi
done
rounds="${WEFT_BENCH_ROUNDS:-2}"
# CPU time (clock ticks, user + system) of process $1 and its children.
cpu_ticks() {
  local total=0 p f
  for p in "$1" $(pgrep -P "$1" || true); do
    f=$(cat "/proc/$p/stat" 2>/dev/null) || continue
    f=${f##*) }
    set -- $f
    total=$((total + ${12} + ${13}))
  done
  echo "$total"
}
hz=$(getconf CLK_TCK)
median() { tr ' ' '\n' | grep . | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
echo "machine: $(nproc) cores, $(uname -m); $(dotnet --list-runtimes | grep AspNetCore.App | tail -1)"
declare -A results cpu
for ((round = 1; round <= rounds; round++)); do
  for name in "${order[@]}"; do
    url="http://127.0.0.1:$port"
    ${configs[$name]} --urls "$url" >"$out/server.log" 2>&1 &
    server=$!
    until curl -sf "$url/health" >/dev/null; do sleep 0.1; done
    wrk -t2 -c16 -d2s "$url/search?q=oak" >/dev/null
    before=$(cpu_ticks "$server")
    report=$(wrk -t2 -c16 -d5s "$url/search?q=oak")
    after=$(cpu_ticks "$server")
    rps=$(awk '/Requests\/sec/ {print $2}' <<<"$report")
    requests=$(awk '/requests in/ {print $1}' <<<"$report")
    cpu["$name"]+=" $(awk -v t=$((after - before)) -v hz="$hz" -v n="$requests" \
      'BEGIN {printf "%.1f", t * 1e6 / hz / n}')"
    # The process under weft run is dotnet, weft's child: stop the whole group.
    pkill -P "$server" 2>/dev/null || true
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    server=""
    results["$name"]+=" $rps"
    port=$((port + 1))
  done
done
base=$(echo "${results[unwoven]}" | median)
cbase=$(echo "${cpu[unwoven]}" | median)
for name in "${order[@]}"; do
  m=$(echo "${results[$name]}" | median)
  c=$(echo "${cpu[$name]}" | median)
  printf '  %-34s requests/s:%s; median %.0f (%+.1f %%); CPU us a request:%s; median %.1f (%+.1f %%)\n' \
    "$name" "${results[$name]}" "$m" "$(awk -v m="$m" -v b="$base" 'BEGIN {print (m - b) * 100 / b}')" \
    "${cpu[$name]}" "$c" "$(awk -v c="$c" -v b="$cbase" 'BEGIN {print (c - b) * 100 / b}')"
done
