#!/usr/bin/env bash
# storbench's PUT, GET and STAT rates against several S3 servers on one
# machine, side by side (docs/measuring.md: versitygw and Ceph's RADOS
# Gateway). ROUNDS rounds; in each, every server runs put, then get, then
# stat, the servers' order turned by one every round, so no server is
# always first after an idle spell. Each round's line holds the load
# average (1 min) read just before it: on a machine others share, a loaded
# round is slower for every server in it, so compare servers within a
# round and take medians. Prints each round's obj/s, then each server's
# median and range per operation.
#
# usage: bench/s3-servers.sh STORBENCH NAME=HOST:PORT NAME=HOST:PORT ...
#   One key pair for every server: STORBENCH_ACCESS_KEY and
#   STORBENCH_SECRET_KEY (the test servers all take the same).
#   env: SIZE (64KiB), DURATION (5s), CONCURRENT (8), OBJECTS (200),
#   ROUNDS (8)
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: bench/s3-servers.sh STORBENCH NAME=HOST:PORT ..." >&2; exit 2; }
bin=$1; shift
: "${STORBENCH_ACCESS_KEY:?set STORBENCH_ACCESS_KEY and STORBENCH_SECRET_KEY}" "${STORBENCH_SECRET_KEY:?set STORBENCH_SECRET_KEY}"
size=${SIZE:-64KiB}
duration=${DURATION:-5s}
conc=${CONCURRENT:-8}
objects=${OBJECTS:-200}
rounds=${ROUNDS:-8}
names=(); eps=()
for s in "$@"; do
  [[ $s == *=* ]] || { echo "$s: want NAME=HOST:PORT" >&2; exit 2; }
  names+=("${s%%=*}"); eps+=("${s#*=}")
done
n=${#names[@]}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export STORBENCH_CATALOG=off

# rate runs one benchmark and prints its obj/s (summary.json's
# ops_per_s), or "failed" with the output kept in $work.
rate() {
  local name=$1 ep=$2 op=$3 out=$work/$1-$3.out
  if "$bin" s3 "$op" --host "$ep" --bucket "sb-bench-$op" --obj.size "$size" --duration "$duration" \
      --concurrent "$conc" --objects "$objects" --results "$work/res" >"$out" 2>&1; then
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(round(d["phases"][0]["ops"][0]["ops_per_s"]))' "$work"/res/*/summary.json
  else
    echo failed
  fi
  rm -rf "$work/res"
}

printf '%-5s %-6s %-12s %8s %8s %8s\n' round load server PUT GET STAT
for r in $(seq "$rounds"); do
  load=$(cut -d' ' -f1 /proc/loadavg)
  for k in $(seq 0 $((n - 1))); do
    i=$(( (k + r - 1) % n ))
    line=$(printf '%-5s %-6s %-12s' "$r" "$load" "${names[$i]}")
    for op in put get stat; do
      v=$(rate "${names[$i]}" "${eps[$i]}" "$op")
      line+=$(printf ' %8s' "$v")
      echo "$r ${names[$i]} $op $v" >>"$work/all.txt"
    done
    echo "$line"
  done
done

echo
printf '%-12s %-5s %8s %17s\n' server op median range
python3 - "$work/all.txt" "${names[@]}" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
for name in sys.argv[2:]:
    for op in ("put", "get", "stat"):
        v = [int(x[3]) for x in rows if x[1] == name and x[2] == op and x[3] != "failed"]
        if v:
            print("%-12s %-5s %8d %8d - %6d" % (name, op.upper(), statistics.median(v), min(v), max(v)))
PY
