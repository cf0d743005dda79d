#!/usr/bin/env bash
# make demo: starts a local versitygw S3 server (posix backend, loopback,
# temporary root), runs storbench's built-in quick suite against
# ./storbench-data and that server, and stops the server.
set -euo pipefail
bin=${1:-bin/storbench}
vgw=${VERSITYGW:-.tools/versitygw}
root=$(mktemp -d)
port=""
for p in $(seq 17070 17170); do
  if ! (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null; then port=$p; break; fi
done
[ -n "$port" ] || { echo "no free port for the S3 server" >&2; exit 1; }
access=demo$RANDOM$RANDOM
secret=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
ROOT_ACCESS_KEY="$access" ROOT_SECRET_KEY="$secret" \
  "$vgw" --port 127.0.0.1:$port --quiet --keep-alive posix "$root" >"$root.log" 2>&1 &
pid=$!
cleanup() { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$root" "$root.log"; }
trap cleanup EXIT
for _ in $(seq 50); do
  (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break
  sleep 0.1
done
echo "S3 server: versitygw on 127.0.0.1:$port (posix backend in $root)"
STORBENCH_HOST=127.0.0.1:$port STORBENCH_ACCESS_KEY=$access STORBENCH_SECRET_KEY=$secret \
  "$bin" run
