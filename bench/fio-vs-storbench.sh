#!/usr/bin/env bash
# The seed's read-IOPS job (64 jobs, iodepth 8, 4 KiB random reads, libaio,
# direct) run through plain fio and through storbench on the same directory,
# alternately, ROUNDS times. Prints both IOPS figures side by side and the wall
# time storbench adds beyond fio's own.
#
# usage: bench/fio-vs-storbench.sh [STORBENCH_BIN] [DIR]
#   env: RUNTIME (default 10), SIZE (default 64M), ROUNDS (default 3)
set -euo pipefail
bin=${1:-bin/storbench}
dir=${2:-$(mktemp -d /var/tmp/storbench-bench.XXXXXX)}
runtime=${RUNTIME:-10}
size=${SIZE:-64M}
rounds=${ROUNDS:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
job=$here/internal/engine/fio/workloads/default/031-iopsR.job
work=$(mktemp -d)
trap 'rm -rf "$work" "$dir/plain-fio"' EXIT
mkdir -p "$dir/plain-fio"

# The same job text storbench runs: runtime and size overridden, files in a
# directory of their own.
sed -e "s/^runtime=.*/runtime=$runtime/" -e "s/^filesize=.*/filesize=$size/" \
    -e "/^\[global\]/a directory=$dir/plain-fio" "$job" > "$work/plain.job"
mkdir -p "$work/w" && cp "$job" "$work/w/"

now() { date +%s.%N; }
iops_fio() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(round(sum(j["read"]["iops"] for j in d["jobs"])))' "$1"; }
iops_sb() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(round(d["phases"][0]["ops"][0]["ops_per_s"]))' "$1"; }

results=$work/rounds.txt
stages() { python3 - "$1" <<'PY'
import json, sys, glob, os
d = sys.argv[1]
ph = json.load(open(os.path.join(d, "summary.json")))["phases"][0]
t = ph["timing"]
fio = float(json.load(open(glob.glob(os.path.join(d, ph["dir"], "hosts", "*", "result.json"))[0]))["meta"]["fio_wall_s"])
# Deleting fio's files: waited for (cleanup_s), or in the background
# (removal_s), overlapping the results and awaited before the run ends.
print("    storbench's own time: prepare %.2f s, around fio %.2f s, cleanup waited %.2f s, removal in the background %.2f s" % (t["prepare_s"], t["run_s"] - fio, t["cleanup_s"], t.get("removal_s", 0)))
PY
}
printf '%-6s %12s %12s %8s %10s %10s %10s\n' round fio_IOPS storbench_IOPS ratio fio_wall_s sb_wall_s added_s
for r in $(seq "$rounds"); do
  t0=$(now); fio --output-format=json --output="$work/plain.json" "$work/plain.job" >/dev/null; t1=$(now)
  rm -rf "$dir/plain-fio"/*
  t2=$(now); "$bin" fio -d "$dir" -w "$work/w" --runtime "${runtime}s" --size "$size" --results "$work/res" >/dev/null; t3=$(now)
  a=$(iops_fio "$work/plain.json")
  b=$(iops_sb "$(ls -d "$work"/res/*/ | tail -1)summary.json")
  python3 -c "import sys; a,b,t0,t1,t2,t3=map(float,sys.argv[2:]); print('%-6s %12d %12d %8.3f %10.2f %10.2f %10.2f' % (sys.argv[1], a, b, b/a, t1-t0, t3-t2, (t3-t2)-(t1-t0)))" "$r" "$a" "$b" "$t0" "$t1" "$t2" "$t3" | tee -a "$results"
  stages "$(ls -d "$work"/res/*/ | tail -1)"
done
python3 - "$results" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
print("median: fio %d IOPS, storbench %d IOPS, ratio %.3f, storbench adds %.2f s of wall time per job" % (
    statistics.median(float(r[1]) for r in rows), statistics.median(float(r[2]) for r in rows),
    statistics.median(float(r[3]) for r in rows), statistics.median(float(r[6]) for r in rows)))
PY
