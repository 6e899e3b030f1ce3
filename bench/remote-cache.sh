#!/usr/bin/env bash
# The weaving cache on a server (docs/cache.md), as whole processes (weft-measure: least and
# median wall time of N, peak RSS), each beside the weave it saves, taking turns (warnings of the
# weaves, ReadyToRun images written as IL, are not shown):
#
#  - a cold checkout (another folder, no folder cache of its own) of a solution of 20 assemblies
#    (Roslyn's compilers, Microsoft.CodeAnalysis and its C# half, and the 18 largest assemblies
#    of the shared framework), woven with `coverage`, against a warm remote cache: nginx with its
#    WebDAV module on loopback, configured as docs/cache.md configures it;
#  - the keys of the shared framework's assemblies (--print-cache-key), against weaving them.
#
#   bench/remote-cache.sh [--repeat N] [BUILD_DIR]      (default: 5 runs, build)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repeat=5
[[ ${1:-} == --repeat ]] && { repeat=$2; shift 2; }
build="$(cd "${1:-$here/../build}" && pwd)"
for tool in cli/weft bench/weft-measure; do
  [[ -x "$build/$tool" ]] || { echo "build weft first (missing $build/$tool)" >&2; exit 1; }
done
nginx=$(command -v nginx || echo /usr/sbin/nginx)
[[ -x "$nginx" ]] || { echo "nginx is not installed (./dev installs it)" >&2; exit 1; }
weft="$build/cli/weft"
measure="$build/bench/weft-measure"

fx="$(dotnet --list-runtimes | awk '/^Microsoft.NETCore.App /{v=$2; d=$3} END{gsub(/[\[\]]/,"",d); print d "/" v}')"
sdk="$(dotnet --list-sdks | awk '{v=$1; d=$2} END{gsub(/[\[\]]/,"",d); print d "/" v}')"
work="$(mktemp -d)"
server_pid=
cleanup() {
  [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# The solution: Roslyn's two largest and the framework's 18 largest assemblies, in two checkouts.
mapfile -t solution < <(ls -S "$fx"/*.dll | head -18)
solution+=("$sdk/Roslyn/bincore/Microsoft.CodeAnalysis.dll" "$sdk/Roslyn/bincore/Microsoft.CodeAnalysis.CSharp.dll")
for checkout in a b; do
  mkdir -p "$work/$checkout/src"
  cp "${solution[@]}" "$work/$checkout/src/"
done

# The server, on a free loopback port.
mkdir -p "$work/server/store" "$work/server/tmp" "$work/server/logs"
port=$((20000 + RANDOM % 20000))
while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
cat >"$work/server/nginx.conf" <<EOF
worker_processes auto;
$( [[ $(id -u) == 0 ]] && echo "user root;" )
error_log $work/server/logs/error.log;
pid $work/server/nginx.pid;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path $work/server/tmp;
  proxy_temp_path $work/server/tmp; fastcgi_temp_path $work/server/tmp;
  uwsgi_temp_path $work/server/tmp; scgi_temp_path $work/server/tmp;
  client_max_body_size 0;
  server {
    listen 127.0.0.1:$port;
    location / {
      root $work/server/store;
      dav_methods PUT;
      create_full_put_path on;
      dav_access user:rw group:r all:r;
    }
  }
}
EOF
"$nginx" -p "$work/server" -c "$work/server/nginx.conf" -g 'daemon off;' &
server_pid=$!
for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.05; done
url="http://127.0.0.1:$port/"

# Checkout a weaves and keeps its outputs on the server; checkout b is the cold runner.
weave=(weave --pass coverage -q --unsigned)
"$weft" "${weave[@]}" "$work/a/src/"*.dll --out-dir "$work/a/out" --remote-cache "$url" 2>/dev/null
"$weft" "${weave[@]/-q/-v}" "$work/b/src/"*.dll --out-dir "$work/b/restored" --remote-cache "$url" 2>"$work/b.err"
restored=$(grep -c "taken from the remote cache" "$work/b.err" || true)
bytes=$(du -cb "$work/b/restored"/* | tail -1 | cut -f1)
echo "machine: $(nproc) cores, $(uname -m); $(dotnet --list-runtimes | grep NETCore.App | tail -1); nginx $("$nginx" -v 2>&1 | cut -d/ -f2)"
echo "solution: ${#solution[@]} assemblies, $(( $(du -cb "${solution[@]}" | tail -1 | cut -f1) / 1024 / 1024 )) MiB; restored by the cold checkout: $restored of ${#solution[@]}, $(( bytes / 1024 / 1024 )) MiB (woven assemblies, PDBs, coverage maps)"
"$weft" "${weave[@]}" "$work/b/src/"*.dll --out-dir "$work/b/local" --cache-dir "$work/b/cache" 2>/dev/null
"$measure" --repeat "$repeat" \
  --label "weave the 20 assemblies (coverage)" -- \
  "$weft" "${weave[@]}" "$work/b/src/"*.dll --out-dir "$work/b/woven" \
  ';;' --label "cold checkout, warm remote cache" -- \
  "$weft" "${weave[@]}" "$work/b/src/"*.dll --out-dir "$work/b/restored" --remote-cache "$url" \
  ';;' --label "warm folder cache (for reference)" -- \
  "$weft" "${weave[@]}" "$work/b/src/"*.dll --out-dir "$work/b/local" --cache-dir "$work/b/cache" \
  ';;' --label "their keys alone (--print-cache-key)" -- \
  "$weft" "${weave[@]}" "$work/b/src/"*.dll --out-dir "$work/b/local" --print-cache-key

mapfile -t framework < <(ls "$fx"/*.dll)
echo "the shared framework: ${#framework[@]} assemblies, $(( $(du -cb "${framework[@]}" | tail -1 | cut -f1) / 1024 / 1024 )) MiB"
"$measure" --repeat "$repeat" \
  --label "weave the framework (coverage)" -- \
  "$weft" "${weave[@]}" "${framework[@]}" --out-dir "$work/fx" \
  ';;' --label "their keys (--print-cache-key)" -- \
  "$weft" "${weave[@]}" "${framework[@]}" --out-dir "$work/fx" --print-cache-key
