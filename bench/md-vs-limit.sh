#!/usr/bin/env bash
# storbench md against the physical limit: bench/mdloop.c, a C loop of
# openat(O_CREAT)+close, fstatat and unlinkat relative to a directory fd, with
# W workers each in its own directory, timed per phase to the slowest worker.
# With MODE=shared all workers share one directory and each stats and removes
# the files of the worker STRIDE further on (mdloop -s -N S against storbench
# md without -u and with --rank-stride S, the same rank for stat and remove:
# mdtest's default tree with the -N of mdtest before 3.3).
# The loop runs its workers as threads and, with -p, as processes (as MPI
# ranks of mdtest are: processes do not share a file-descriptor table); the
# limit of a round is the better of the two for each operation. The loop and
# storbench run alternately ROUNDS times with the same shape (2 workers x
# 20,000 files, a directory each) on tmpfs and on the local disk. Prints each
# round's create, stat and remove rates (both loop modes, the limit, and
# storbench), storbench's ratio to the limit, the median ratio per file
# system, and the ratio of the best rounds. Issue 3's goal: each median ratio
# >= 0.9 on tmpfs; issue 12's (MODE=shared): stat's and remove's. On a host where other work runs, single rounds swing both
# ways; raise ROUNDS.
#
# usage: bench/md-vs-limit.sh [STORBENCH_BIN]
#   env: ROUNDS (3), WORKERS (2), ITEMS (20000; 100000 with MODE=shared),
#        MODE (unique: a directory per worker, -u; shared: one directory, -N),
#        STRIDE (1, MODE=shared only),
#        TMPFS_DIR (/dev/shm), DISK_DIR (a directory in the repo),
#        MDLOOP_SRC (bench/mdloop.c),
#        FS ("tmpfs disk": which file systems to run),
#        STRICT=1 to exit 1 when a tmpfs median ratio is below 0.9
set -euo pipefail
# The project's own benches index nothing: no bench run lands in the
# catalog of the user who runs it (TestTestsAndBenchesKeepOutOfTheUsersCatalog).
export STORBENCH_CATALOG=off
here=$(cd "$(dirname "$0")/.." && pwd)
rounds=${ROUNDS:-3}
workers=${WORKERS:-2}
mode=${MODE:-unique}
case $mode in
unique)
  items=${ITEMS:-20000}
  loop_args=()
  sb_args=(-u)
  ;;
shared)
  items=${ITEMS:-100000}
  stride=${STRIDE:-1}
  loop_args=(-s -N "$stride")
  sb_args=(--rank-stride "$stride")
  ;;
*)
  echo "MODE $mode: give unique or shared" >&2
  exit 2
  ;;
esac
echo "mode $mode: $workers workers x $items files, $rounds rounds; loop: mdloop ${loop_args[*]}; storbench: md -F ${sb_args[*]}"
src=${MDLOOP_SRC:-$here/bench/mdloop.c}
work=$(mktemp -d)
tmpfs_dir=$(mktemp -d "${TMPFS_DIR:-/dev/shm}/storbench-md-bench.XXXXXX")
disk_dir=$(mktemp -d "${DISK_DIR:-$here}/.storbench-md-bench.XXXXXX")
trap 'rm -rf "$work" "$tmpfs_dir" "$disk_dir"' EXIT

gcc -O2 -pthread -o "$work/mdloop" "$src"
bin=${1:-}
if [ -z "$bin" ]; then
  bin=$work/storbench
  (cd "$here" && go build -o "$bin" ./cmd/storbench)
fi

rates_sb() {
  python3 - "$1" <<'PY'
import json, sys
ops = {o["op"]: o["ops_per_s"] for o in json.load(open(sys.argv[1]))["phases"][0]["ops"]}
print(round(ops["file-create"]), round(ops["file-stat"]), round(ops["file-remove"]))
PY
}

rows=$work/rows.txt
printf '%-6s %-5s %-10s %10s %10s %10s\n' fs round who create stat remove
for fs in ${FS:-tmpfs disk}; do
  dir=$tmpfs_dir
  [ "$fs" = disk ] && dir=$disk_dir
  for r in $(seq "$rounds"); do
    # The loop with threads, then with processes; the limit is the better
    # of the two for each operation.
    mkdir -p "$dir/loop"
    read -r _ tc _ ts _ td < <("$work/mdloop" "${loop_args[@]}" "$dir/loop" "$workers" "$items")
    rm -rf "$dir/loop"
    mkdir -p "$dir/loop"
    read -r _ pc _ ps _ pd < <("$work/mdloop" -p "${loop_args[@]}" "$dir/loop" "$workers" "$items")
    rm -rf "$dir/loop"
    c=$((tc > pc ? tc : pc)) s=$((ts > ps ? ts : ps)) d=$((td > pd ? td : pd))
    printf '%-6s %-5s %-10s %10d %10d %10d\n' "$fs" "$r" loop-thr "$tc" "$ts" "$td"
    printf '%-6s %-5s %-10s %10d %10d %10d\n' "$fs" "$r" loop-proc "$pc" "$ps" "$pd"
    "$bin" md -d "$dir" -t "$workers" -n "$items" "${sb_args[@]}" -F --results "$work/res" >"$work/sb.out" 2>&1 ||
      { cat "$work/sb.out"; exit 1; }
    read -r sc ss sd < <(rates_sb "$(ls -d "$work"/res/*/ | tail -1)summary.json")
    printf '%-6s %-5s %-10s %10d %10d %10d\n' "$fs" "$r" limit "$c" "$s" "$d" | tee -a "$work/rates.txt"
    printf '%-6s %-5s %-10s %10d %10d %10d\n' "$fs" "$r" storbench "$sc" "$ss" "$sd" | tee -a "$work/rates.txt"
    python3 -c 'import sys; a=list(map(float,sys.argv[3:6])); b=list(map(float,sys.argv[6:9])); print("%-6s %-5s %-10s %10.3f %10.3f %10.3f" % (sys.argv[1], sys.argv[2], "ratio", *(y/x for x, y in zip(a, b))))' \
      "$fs" "$r" "$c" "$s" "$d" "$sc" "$ss" "$sd" | tee -a "$rows"
  done
done

python3 - "$rows" "${STRICT:-0}" "$work/rates.txt" "$mode" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
rates = [l.split() for l in open(sys.argv[3])]
# The goal: issue 3's, every operation with a directory per worker; issue
# 12's, stat and remove in the shared directory with -N.
goal = (0, 1, 2) if sys.argv[4] == "unique" else (1, 2)
names = ("create", "stat", "remove")
short = False
print()
for fs in ("tmpfs", "disk"):
    rs = [r for r in rows if r[0] == fs]
    if not rs:
        continue
    med = [statistics.median(float(r[i]) for r in rs) for i in (3, 4, 5)]
    print("%s median ratio storbench/limit: create %.3f, stat %.3f, remove %.3f" % (fs, *med))
    # Best round against best round: what each reaches when least disturbed
    # by whatever else runs on the host.
    best = {who: [max(float(r[i]) for r in rates if r[0] == fs and r[2] == who) for i in (3, 4, 5)] for who in ("limit", "storbench")}
    print("%s best-of-%d ratio: create %.3f, stat %.3f, remove %.3f" % (fs, len(rs), *(b / a for a, b in zip(best["limit"], best["storbench"]))))
    if fs == "tmpfs" and min(med[i] for i in goal) < 0.9:
        short = True
print("goal (tmpfs, %s each >= 0.9):" % ", ".join(names[i] for i in goal), "met" if not short else "NOT met")
sys.exit(1 if short and sys.argv[2] == "1" else 0)
PY
