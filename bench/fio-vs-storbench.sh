#!/usr/bin/env bash
# The seed's read-IOPS job (64 jobs, iodepth 8, 4 KiB random reads, libaio,
# direct) run through plain fio and through storbench on the same directory,
# ROUNDS times, the order swapped every round (odd rounds plain fio first).
# Prints both IOPS figures side by side and the wall time storbench adds
# over plain fio doing the same work.
#
# The same work: storbench lays out the files, runs the job and removes the
# files, so plain fio's time is fio's wall plus removing its files (rm -rf,
# timed apart). storbench drops a startdelay that every section has alike
# (its start gate starts the jobs together, internal/engine/fio/gate.go), so
# plain fio runs the job with startdelay=0: the seed's startdelay=5 would
# add 5 s of sleep to plain fio alone. added_s is storbench's wall less
# plain fio's wall and removal; the line under each round splits
# storbench's wall into its stages.
#
# Each round says the load it ran under (bench/loadgate.sh): the medians
# come only from rounds whose load average per core was at or below
# MAX_LOAD at their start and end, and with none it says "machine too busy
# to conclude" instead.
#
# usage: bench/fio-vs-storbench.sh [STORBENCH_BIN] [DIR]
#   env: RUNTIME (default 10), SIZE (default 64M), ROUNDS (default 3),
#        MAX_LOAD (default 0.75: load average per core)
set -euo pipefail
# The project's own benches index nothing: no bench run lands in the
# catalog of the user who runs it (TestTestsAndBenchesKeepOutOfTheUsersCatalog).
export STORBENCH_CATALOG=off
bin=${1:-bin/storbench}
made=
if [ -n "${2:-}" ]; then dir=$2; else dir=$(mktemp -d /var/tmp/storbench-bench.XXXXXX); made=$dir; fi
runtime=${RUNTIME:-10}
size=${SIZE:-64M}
rounds=${ROUNDS:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/bench/loadgate.sh"
job=$here/internal/engine/fio/workloads/default/031-iopsR.job
work=$(mktemp -d)
# The directory made here goes too (storbench leaves nothing in it).
trap 'rm -rf "$work" "$dir/plain-fio" "$lg_tmp" "$lg_tmp".c0 "$lg_tmp".c1; if [ -n "$made" ]; then rmdir "$made"; fi' EXIT
mkdir -p "$dir/plain-fio"

# The same job text storbench runs: runtime and size overridden, no
# startdelay (as storbench runs it), files in a directory of their own.
sed -e "s/^runtime=.*/runtime=$runtime/" -e "s/^filesize=.*/filesize=$size/" \
    -e "s/^startdelay=.*/startdelay=0/" \
    -e "/^\[global\]/a directory=$dir/plain-fio" "$job" > "$work/plain.job"
mkdir -p "$work/w" && cp "$job" "$work/w/"

now() { date +%s%N; }
iops_fio() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(round(sum(j["read"]["iops"] for j in d["jobs"])))' "$1"; }
iops_sb() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(round(d["phases"][0]["ops"][0]["ops_per_s"]))' "$1"; }

# plain: fio, then the removal of its files (both Unix ns stamps kept).
plain() {
  p0=$(now); fio --output-format=json --output="$work/plain.json" "$work/plain.job" >/dev/null; p1=$(now)
  rm -rf "$dir/plain-fio"/*; p2=$(now)
}
sb() {
  s0=$(now); "$bin" fio -d "$dir" -w "$work/w" --runtime "${runtime}s" --size "$size" --results "$work/res" >/dev/null; s1=$(now)
}

# stages prints storbench's wall split into its stages: the run's start
# (process, plan, results folder) up to the phase, the phase's preparation
# (the layout pass is in it), the time around fio in the run stage, the
# cleanup waited for, the removal of fio's files in the background, and
# what the run waited for that removal after writing its results.
stages() { python3 - "$1" "$s0" "$s1" <<'PY'
import json, sys, glob, os
d, s0, s1 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ph = json.load(open(os.path.join(d, "summary.json")))["phases"][0]
t = ph["timing"]
fio = float(json.load(open(glob.glob(os.path.join(d, ph["dir"], "hosts", "*", "result.json"))[0]))["meta"]["fio_wall_s"])
wall = (s1 - s0) / 1e9
rm, rs, re_ = t.get("removal_s"), t.get("removal_start_ns"), t.get("removal_end_ns")
after = (s1 - re_) / 1e9 if re_ else float("nan")
# What storbench's wall holds besides the phase's stages: start-up,
# results, the wait for the removal, exit.
other = wall - t["prepare_s"] - t["run_s"] - t["cleanup_s"]
print("    storbench: wall %.2f s = prepare %.2f + run %.2f (fio %.2f, around fio %.2f) + cleanup waited %.2f + the rest %.2f; removal in the background %s s, ended %.2f s before exit" % (
    wall, t["prepare_s"], t["run_s"], fio, t["run_s"] - fio, t["cleanup_s"], other,
    "%.2f" % rm if rm is not None else "absent", after))
PY
}

results=$work/rounds.txt
printf '%-6s %-9s %12s %14s %7s %8s %8s %8s %8s %12s\n' round first fio_IOPS storbench_IOPS ratio fio_s rm_s sb_s added_s sb_minus_fio
for r in $(seq "$rounds"); do
  lg_begin
  if (( r % 2 )); then first=fio; lg_side fio plain; lg_side storbench sb; else first=storbench; lg_side storbench sb; lg_side fio plain; fi
  a=$(iops_fio "$work/plain.json")
  last=$(ls -d "$work"/res/*/ | tail -1)
  b=$(iops_sb "${last}summary.json")
  python3 -c "
import sys
r, first = sys.argv[1:3]
a, b, p0, p1, p2, s0, s1 = map(float, sys.argv[3:])
fio, rm, sbw = (p1-p0)/1e9, (p2-p1)/1e9, (s1-s0)/1e9
print('%-6s %-9s %12d %14d %7.3f %8.2f %8.2f %8.2f %8.2f %12.2f' % (r, first, a, b, b/a, fio, rm, sbw, sbw-fio-rm, sbw-fio))
" "$r" "$first" "$a" "$b" "$p0" "$p1" "$p2" "$s0" "$s1" > "$work/row"
  cat "$work/row"
  stages "$last"
  if lg_end "$r"; then cat "$work/row" >> "$results"; fi
done
lg_summary || exit 0
python3 - "$results" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
med = lambda i: statistics.median(float(r[i]) for r in rows)
print("median of %d rounds: fio %d IOPS, storbench %d IOPS, ratio %.3f; plain fio %.2f s + removing its files %.2f s, storbench %.2f s: storbench adds %.2f s of wall time per job (%.2f s over fio alone)" % (
    len(rows), med(2), med(3), med(4), med(5), med(6), med(7), med(8), med(9)))
PY
