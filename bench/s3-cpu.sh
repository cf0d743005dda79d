#!/usr/bin/env bash
# CPU per request of storbench's S3 client, the figure of issue 4: a local
# versitygw (posix backend on a temporary root, --quiet --keep-alive), then
#   storbench s3 get  4 KiB objects, 1000 objects, 16 concurrent, DURATION
#   storbench s3 put  64 KiB objects, 16 concurrent, DURATION
# each under /usr/bin/time. Prints obj/s and the storbench process's CPU
# (user+sys) in microseconds per request. Requests counts every request the
# process made: the measured ones plus the uploads of the preparation (the
# cleanup's few list and batch-delete requests are not counted, so the
# figure errs high). The reference on a 2-core machine: 119 us per 4 KiB GET
# at 6,740 obj/s, 315 us per 64 KiB PUT at 1,795 obj/s.
#
# The request paths are measured, alternating within each round: "lean"
# (the default: hand-written HTTP/1.1) and "sdk" (--sdk: minio-go) over
# plain HTTP, and "tls" and "tls-sdk", the same two over HTTPS against a
# second versitygw with a self-signed certificate (openssl; storbench
# --tls --ca-cert). With ROUNDS > 1 the medians and ranges per path and
# benchmark follow, and the ratio of TLS lean to plain lean CPU per
# request. Client and server share the cores, so the load average
# (printed before and after) matters: other work on the machine lowers
# obj/s and raises CPU per request.
#
# A third client, "verify", is the lean path with --verify: its GETs check
# every body byte against what was written (it makes no PUT round), so
# CLIENTS="lean verify" gives the CPU --verify adds per GET; GET_SIZE
# changes the GET's object size (4KiB by default).
#
# WATCH="off on" measures each run twice, alternating: as is, and watched
# (--metrics-listen on loopback scraped every second by bench/scrape.py as
# Prometheus scrapes, and --live to a file), the cost of issue 14's
# metrics; the medians are per setting.
#
# usage: bench/s3-cpu.sh [STORBENCH_BIN]
#   env: DURATION (default 30s), ROUNDS (default 1),
#        CLIENTS (default "lean sdk tls tls-sdk"), OPS (default "get put"),
#        GET_SIZE (default 4KiB), WATCH (default "off")
# profile: STORBENCH_CPU=1 STORBENCH_CPU_OP=get go test ./internal/engine/s3 \
#   -run TestCPUPerRequest -cpuprofile cpu.out  (add STORBENCH_S3_SDK=1 for minio-go,
#   STORBENCH_CPU_TLS=1 for HTTPS)
set -euo pipefail
# The project's own benches index nothing: no bench run lands in the
# catalog of the user who runs it (TestTestsAndBenchesKeepOutOfTheUsersCatalog).
export STORBENCH_CATALOG=off
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/bin/storbench}
duration=${DURATION:-30s}
rounds=${ROUNDS:-1}
clients=${CLIENTS:-lean sdk tls tls-sdk}
ops=${OPS:-get put}
get_size=${GET_SIZE:-4KiB}
watches=${WATCH:-off}
vgw=${STORBENCH_VERSITYGW:-$here/.tools/versitygw}
[ -x "$vgw" ] || (mkdir -p "$here/.tools" && GOBIN=$here/.tools go install github.com/versity/versitygw/cmd/versitygw@v1.8.0)
[ -x "$bin" ] || (cd "$here" && go build -o "$bin" ./cmd/storbench)

work=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
tlsport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# Throwaway keys for a loopback-only server, passed through the environment.
export ROOT_ACCESS_KEY=benchaccess ROOT_SECRET_KEY=benchsecret-$RANDOM$RANDOM
mkdir -p "$work/root" "$work/tlsroot"
# A self-signed certificate for the HTTPS server, trusted by storbench
# through --ca-cert.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=localhost \
  -addext subjectAltName=IP:127.0.0.1,DNS:localhost -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
"$vgw" --port "127.0.0.1:$port" --quiet --keep-alive posix "$work/root" >"$work/vgw.log" 2>&1 &
vgw_pid=$!
"$vgw" --port "127.0.0.1:$tlsport" --cert "$work/cert.pem" --key "$work/key.pem" --quiet --keep-alive posix "$work/tlsroot" >"$work/vgwtls.log" 2>&1 &
vgwtls_pid=$!
trap 'kill $vgw_pid $vgwtls_pid 2>/dev/null; wait $vgw_pid $vgwtls_pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.05; done
for _ in $(seq 100); do curl -s -o /dev/null --cacert "$work/cert.pem" "https://127.0.0.1:$tlsport/" && break; sleep 0.05; done

export STORBENCH_HOST=127.0.0.1:$port STORBENCH_ACCESS_KEY=$ROOT_ACCESS_KEY STORBENCH_SECRET_KEY=$ROOT_SECRET_KEY

run() { # client watch op size objects-prepared extra-args...
  local client=$1 watch=$2 op=$3 size=$4 prepared=$5; shift 5
  local out=$work/$op.out flag=() scraper=
  case $client in
    sdk) flag=(--sdk) ;;
    verify) flag=(--verify) ;;
    tls) flag=(--host "127.0.0.1:$tlsport" --tls --ca-cert "$work/cert.pem") ;;
    tls-sdk) flag=(--host "127.0.0.1:$tlsport" --tls --ca-cert "$work/cert.pem" --sdk) ;;
  esac
  if [ "$watch" = on ]; then
    local mport
    mport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    rm -f "$work/live.jsonl" # --live makes a new file; it refuses one that exists
    flag+=(--metrics-listen "127.0.0.1:$mport" --live "$work/live.jsonl")
    python3 "$here/bench/scrape.py" openmetrics 1 "http://127.0.0.1:$mport/metrics" &
    scraper=$!
  fi
  /usr/bin/time -f '%U %S' -o "$work/$op.time" \
    "$bin" s3 "$op" --obj.size "$size" --concurrent 16 --duration "$duration" \
    --bucket "cpu-$op" --results "$work/results" "${flag[@]}" "$@" >"$out" 2>&1 || { cat "$out"; exit 1; }
  [ -n "$scraper" ] && { kill "$scraper"; wait "$scraper" 2>/dev/null || true; }
  local folder
  folder=$(sed -n 's/.*results in \(.*\)$/\1/p' "$out" | tail -1)
  python3 - "$folder/summary.json" "$work/$op.time" "$op" "$size" "$prepared" "$client/$watch" <<'EOF' | tee -a "$work/lines"
import json, sys
summary, timefile, op, size, prepared, client = sys.argv[1:7]
s = json.load(open(summary))
o = s["phases"][0]["ops"][0]
user, sys_ = map(float, open(timefile).read().split()[-2:])
reqs = o["ops"] + o["errors"] + int(prepared)
cpu_us = (user + sys_) * 1e6 / reqs
print(f"{client:12} {op} {size}: {o['ops_per_s']:.0f} obj/s, {o['ops']} requests measured, {o['errors']} errors, "
      f"CPU {cpu_us:.1f} us/request (user {user:.2f}s, sys {sys_:.2f}s over {reqs} requests incl. {prepared} prepare uploads)")
EOF
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$rounds"); do
  for client in $clients; do
    for watch in $watches; do
      for op in $ops; do
        case $op in
          get) run "$client" "$watch" get "$get_size" 1000 --objects 1000 ;;
          put) [ "$client" = verify ] || run "$client" "$watch" put 64KiB 0 ;;
        esac
      done
    done
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$rounds" -gt 1 ]; then python3 - "$work/lines" <<'EOF'
import re, statistics, sys
rows = {}
for l in open(sys.argv[1]):
    m = re.match(r"(\S+)\s+(\S+) (\S+): (\d+) obj/s.*CPU ([\d.]+) us/request", l)
    if m:
        rows.setdefault(m.group(1, 2, 3), []).append((int(m.group(4)), float(m.group(5))))
med = {}
for (client, op, size), v in rows.items():
    ops, cpu = [x[0] for x in v], [x[1] for x in v]
    med[(client, op, size)] = statistics.median(cpu)
    print(f"median of {len(v)}: {client:12} {op} {size}: {statistics.median(ops):.0f} obj/s ({min(ops)}-{max(ops)}), "
          f"CPU {statistics.median(cpu):.1f} us/request ({min(cpu):.1f}-{max(cpu):.1f})")
# Labels are client/watch: ratios compare runs watched alike.
for (label, op, size), cpu in med.items():
    client, watch = label.split("/")
    def base(c, w=watch):
        return med.get((c + "/" + w, op, size))
    if client == "tls" and base("lean"):
        print(f"{op} {size} ({watch}): TLS lean / plain lean CPU per request = {cpu / base('lean'):.2f}")
    if client == "tls-sdk" and base("tls"):
        print(f"{op} {size} ({watch}): TLS --sdk / TLS lean CPU per request = {cpu / base('tls'):.2f}")
    if watch == "on" and base(client, "off"):
        print(f"{op} {size} {client}: watched / not watched CPU per request = {cpu / base(client, 'off'):.2f}")
EOF
fi
