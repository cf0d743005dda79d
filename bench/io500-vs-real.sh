#!/usr/bin/env bash
# storbench's IO500-shaped suite beside the real IO500 (issue 20): the IO500
# driver (IO500/io500, linked with hpc/ior's IOR, mdtest and VI4IO/pfind)
# under MPI with RANKS ranks (3), and storbench run on
# examples/io500-shapes.yaml with as many agents on loopback, one job or
# worker each (as many writers on both sides), on the same directory, with the example's sizes (per rank: ior-easy
# 8 MiB in 2 MiB transfers, 200 files per mdtest phase, 20 ior-hard segments)
# and the same stonewall time on both sides (IO500's stonewall-time; md's
# stonewall on the create phases and fio's, with IOR's wear-out, on the
# ior writes). At the example's sizes neither side reaches it; IOR_SIZES=io500
# gives the ior writes IO500's own sizes on both sides (9,920,000 MiB per
# rank for ior-easy, 10,000,000 segments for ior-hard), which no deadline
# reaches, so both write until the stonewall and wear out, as IO500 does.
# Rounds alternate which side runs first. SCALE multiplies the sizes
# (files, bytes, segments; with IOR_SIZES=io500, those of the md phases): at
# the example's, most phases of both sides last milliseconds and measure
# their start and end more than the file system. Prints every round's
# scores, then per phase the medians over the rounds (and their min-max)
# and storbench's ratio of medians to the real one, and the score's; beside
# it the median of each round's own ratio (storbench's figure over the real
# one run next to it), which a machine whose load drifts between rounds
# moves less.
#
# The real tools are built by hand (never by this script): give their
# paths. IOR and MDTEST are the binaries built from the IOR tree the driver
# was linked with; their version lines are printed beside the figures.
# Without one of them the script says which is missing and exits 0.
#
# usage: IOR=... MDTEST=... IO500=... MPIEXEC=... bench/io500-vs-real.sh [STORBENCH_BIN] [DIR]
#   env: ROUNDS (8), STONEWALL (seconds, 300: IO500's rule), SCALE (1: the
#        example's sizes), IOR_SIZES (example: the example's x SCALE; io500:
#        IO500's, written to the stonewall), RANKS (3: MPI ranks, and as many
#        agents), PORT_BASE (18301: the agents listen on
#        PORT_BASE..PORT_BASE+RANKS-1 on 127.0.0.1), KEEP (a directory: each
#        round's IO500 result directory and storbench results are kept there),
#        SETTLE (5: seconds between one side's end and the next side's start),
#        MAX_LOAD (0.75: the load average per core a round may start and end at)
#
# Ranks and cores: MPICH's ranks wait in MPI_Barrier (and pfind's idle ranks
# in its work stealing) by polling, never sleeping. With more ranks than
# cores, a rank that waits holds a core a working rank needs, and every
# barrier inside IOR's window (open, read, close with -g) or mdtest's costs
# a scheduler slice (4 ms at HZ=250) instead of microseconds; the read, stat
# and find phases, which the page cache makes CPU-bound, then measure the
# MPI runtime's waiting more than the file system. storbench's agents wait
# in the kernel. The script prints the cores beside the ranks; RANKS at or
# below the cores (RANKS=2 on 2 cores) compares the tools without it. The
# MPI environment used (MPIR_CVAR_*, UCX_*, HYDRA_*) is printed as given.
#
# Memory and time: in a virtual machine whose balloon reports free memory to
# the host (free page reporting; /sys/module/page_reporting here), a page
# freed a second or two ago is no longer backed, and the first write into it
# faults in the host: writing 80 MiB into the page cache took IOR itself
# 20 ms right after a file was removed and 200-300 ms after 4 s of waiting.
# A buffered write's figure then depends on how long ago the side before it
# freed its files, which the sides do not share (the IO500 driver starts its
# first write within a second of its start; storbench after its agents,
# prepare and lead). Each side therefore starts SETTLE seconds (5) after the
# round's previous side ended, so both write into memory the host has taken
# back; SETTLE=0 runs them back to back.
#
# Load: under load the MPI side (ranks that poll) loses far more than
# storbench's agents (a score ratio of 1.95 at load 12-26 where a quiet
# machine gave 0.98). Each round prints the load average per core at its
# start and end, the CPU steal over it and each side's CPU time
# (bench/loadgate.sh); the medians and verdicts come only from rounds at
# or below MAX_LOAD (0.75) per core at both ends, and with none the script
# says "machine too busy to conclude" and gives none.
set -euo pipefail
# The project's own benches index nothing: no bench run lands in the
# catalog of the user who runs it (TestTestsAndBenchesKeepOutOfTheUsersCatalog).
export STORBENCH_CATALOG=off
here=$(cd "$(dirname "$0")/.." && pwd)
missing=()
for v in IOR MDTEST IO500 MPIEXEC; do
  p=${!v:-}
  if [ -z "$p" ]; then
    missing+=("$v (not set)")
  elif ! command -v "$p" >/dev/null 2>&1; then
    missing+=("$v ($p: no such program)")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  printf 'io500-vs-real: skipped, the real tools are missing: %s.\n' "$(printf '%s; ' "${missing[@]}" | sed 's/; $//')"
  echo "  Build hpc/ior (ior, mdtest) and IO500/io500 with MPI by hand and give their paths: IOR=... MDTEST=... IO500=... MPIEXEC=... $0"
  exit 0
fi
. "$here/bench/loadgate.sh"
rounds=${ROUNDS:-8}
sw=${STONEWALL:-300}
port=${PORT_BASE:-18301}
scale=${SCALE:-1}
ranks=${RANKS:-3}
settle=${SETTLE:-5}
for v in rounds sw port scale ranks settle; do
  case ${!v} in '' | *[!0-9]*)
    echo "io500-vs-real: ${v^^}=${!v}: give a whole number" >&2
    exit 2
    ;;
  esac
done
[ "$rounds" -ge 1 ] || { echo "io500-vs-real: ROUNDS=0: give at least 1" >&2; exit 2; }
[ "$scale" -ge 1 ] || { echo "io500-vs-real: SCALE=0: give at least 1" >&2; exit 2; }
[ "$ranks" -ge 2 ] || { echo "io500-vs-real: RANKS=$ranks: give at least 2 (the neighbour reads need another rank)" >&2; exit 2; }
keep=${KEEP:-}
if [ -n "$keep" ]; then
  [ ! -e "$keep" ] || [ -d "$keep" ] && [ -z "$(ls -A "$keep" 2>/dev/null)" ] ||
    { echo "io500-vs-real: KEEP=$keep: give a new or empty directory" >&2; exit 2; }
  mkdir -p "$keep"
fi
# The ior writes' sizes: MiB per rank of ior-easy, segments of ior-hard.
case ${IOR_SIZES:-example} in
  example) easy_mb=$((8 * scale)) segs=$((20 * scale)) ;;
  io500) easy_mb=9920000 segs=10000000 ;;
  *) echo "io500-vs-real: IOR_SIZES=$IOR_SIZES: give example or io500" >&2; exit 2 ;;
esac

work=$(mktemp -d)
made=
dir=${2:-}
[ -n "$dir" ] || { dir=$(mktemp -d /var/tmp/storbench-io500.XXXXXX); made=$dir; }
agents=()
stop_agents() {
  for p in "${agents[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${agents[@]}"; do wait "$p" 2>/dev/null || true; done
}
# What the runs made goes; a DIR given stays, one made here goes if empty.
trap 'stop_agents; rm -rf "$work" "$lg_tmp" "$lg_tmp".c0 "$lg_tmp".c1 "$dir/io500-data" "$dir/storbench"; [ -z "$made" ] || rmdir "$made" 2>/dev/null || true' EXIT
mkdir -p "$dir"

bin=${1:-}
if [ -z "$bin" ]; then
  bin=$work/storbench
  (cd "$here" && go build -o "$bin" ./cmd/storbench)
fi

# The tools' versions, as they print them.
ior_v=$(cd "$work" && "$MPIEXEC" -n 1 "$IOR" -s 1 -b 1k -t 1k -o "$work/ior-version" 2>&1 | grep -m1 '^IOR-' || true)
md_v=$(cd "$work" && "$MPIEXEC" -n 1 "$MDTEST" -n 1 -d "$work/mdtest-version" 2>&1 | grep -m1 'was launched' || true)
mpi_v=$("$MPIEXEC" --version 2>&1 | grep -m1 -i 'version' | tr -s ' ' || true)
echo "real: ${ior_v:-IOR (version not printed)}; ${md_v%% was launched*}; MPI $MPIEXEC:${mpi_v#*:}"
echo "storbench: $bin, $("$bin" version 2>/dev/null | tr '\n' ' ')"
mpi_env=$(env | grep -E '^(MPIR_CVAR_|UCX_|HYDRA_|MPICH_)' | sort | tr '\n' ' ' || true)
[ -n "$mpi_env" ] || mpi_env="none set (the defaults: MPICH's ranks poll while they wait)"
echo "MPI environment: $mpi_env"
pr=/sys/module/page_reporting/parameters/reported_kib
[ -r "$pr" ] && echo "free page reporting: on ($(cat "$pr") KiB reported so far); each side starts ${settle} s after the one before it"
echo "$ranks MPI ranks against $ranks agents on $(nproc) cores, one writer each; load $(cut -d' ' -f1-3 /proc/loadavg); directory $dir; stonewall ${sw} s; sizes x$scale, ior-easy ${easy_mb} MiB and ior-hard $segs segments per rank; $rounds rounds"

# The IO500 side: the example's sizes per rank (x SCALE), IO500's standard phases
# (its unscored ior-rnd4K-easy-read switched off).
cat >"$work/io500.ini" <<EOF
[global]
datadir = $dir/io500-data
timestamp-datadir = FALSE
resultdir = $work/io500-results
timestamp-resultdir = FALSE
drop-caches = FALSE
[debug]
stonewall-time = $sw
[ior-easy]
transferSize = 2m
blockSize = ${easy_mb}m
[mdtest-easy]
n = $((200 * scale))
[ior-hard]
segmentCount = $segs
[mdtest-hard]
n = $((200 * scale))
[ior-rnd4K-easy-read]
run = FALSE
EOF

# The storbench side: the example with one job and one worker per host (the
# 2 in ior-hard's expressions is numjobs), the sizes x SCALE (the ior
# writes' as IOR_SIZES says), and the stonewall on md's creates and on the
# ior writes.
sed -e 's/numjobs: 2 /numjobs: 1 /' -e 's/workers: 2 /workers: 1 /' \
    -e 's/\*2\*47008/*1*47008/' -e 's/COUNT}\*2+1/COUNT}*1+1/' -e 's/COUNT}\*2-1/COUNT}*1-1/' \
    -e "s/# full scale: stonewall: 300s .*/stonewall: ${sw}s/" \
    -e "s/stonewall: 1s  *# IOR -D with wear-out.*/stonewall: ${sw}s/" \
    -e "s/size: 8m /size: ${easy_mb}m /" -e "s/items: 200 /items: $((200 * scale)) /" \
    -e "s/(((20-1)/(((${segs}-1)/" -e "s/io_size: 940160 /io_size: $((47008 * segs)) /" \
    "$here/examples/io500-shapes.yaml" >"$work/suite.yaml"
[ "$(grep -c "^ *stonewall: ${sw}s\$" "$work/suite.yaml")" = 4 ] && [ "$(grep -c 'numjobs: 1 ' "$work/suite.yaml")" = 2 ] &&
  [ "$(grep -c "items: $((200 * scale)) " "$work/suite.yaml")" = 2 ] && grep -q "io_size: $((47008 * segs)) " "$work/suite.yaml" &&
  grep -q "size: ${easy_mb}m " "$work/suite.yaml" && grep -q "(((${segs}-1)" "$work/suite.yaml" ||
  { echo "io500-vs-real: examples/io500-shapes.yaml changed shape; update this script's edits of it" >&2; exit 1; }

head -c 32 /dev/urandom | base64 >"$work/token"
chmod 600 "$work/token" # storbench refuses a token file others may read
addrs=()
for i in $(seq 0 $((ranks - 1))); do
  "$bin" agent --listen "127.0.0.1:$((port + i))" --token-file "$work/token" >"$work/agent$i.log" 2>&1 &
  agents+=($!)
  addrs+=("127.0.0.1:$((port + i))")
done
for i in $(seq 0 $((ranks - 1))); do
  for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$((port + i))") 2>/dev/null && break
    sleep 0.1
  done
done

run_real() { # round
  rm -rf "$dir/io500-data" "$work/io500-results"
  sleep "$settle"
  (cd "$work" && "$MPIEXEC" -n "$ranks" "$IO500" "$work/io500.ini") >"$work/real$1.txt" 2>&1 ||
    { echo "io500 failed in round $1:" >&2; tail -20 "$work/real$1.txt" >&2; exit 1; }
}
# A storbench run that fails leaves its round's storbench figures absent
# (said, with the agents' logs) and the rounds go on, unless an agent died.
run_sb() { # round
  sleep "$settle"
  "$bin" run "$work/suite.yaml" -q -d "$dir" --token-file "$work/token" --results "$work/sb$1" \
    --agents "$(IFS=,; echo "${addrs[*]}")" >"$work/sb$1.txt" 2>&1 && return
  echo "storbench failed in round $1 (its figures are absent from the medians):" >&2
  tail -n 20 "$work/sb$1.txt" "$work"/agent?.log >&2
  for p in "${agents[@]}"; do kill -0 "$p" 2>/dev/null || { echo "an agent died: stopping" >&2; exit 1; }; done
}
for r in $(seq "$rounds"); do
  lg_begin
  # The storbench side's work is done by its agents (and their fio), which
  # run across rounds: their CPU over the side is counted with the run's.
  if [ $((r % 2)) = 1 ]; then lg_side real run_real "$r"; lg_side storbench --pids "${agents[*]}" run_sb "$r"; else lg_side storbench --pids "${agents[*]}" run_sb "$r"; lg_side real run_real "$r"; fi
  python3 - "$work" "$r" <<'PY'
import csv, glob, json, os, re, sys
work, r = sys.argv[1], sys.argv[2]
real = {}
for l in open(os.path.join(work, "real%s.txt" % r)):
    m = re.match(r"\[RESULT\]\s+(\S+)\s+([0-9.]+)", l)
    if m:
        real[m.group(1)] = float(m.group(2))
    m = re.search(r"TOTAL ([0-9.]+)", l)
    if l.startswith("[SCORE ]") and m:
        real["score"] = float(m.group(1))
sb = {}
for f in glob.glob(os.path.join(work, "sb" + r, "*", "summary.json")):
    s = json.load(open(f)).get("io500") or {"figures": []}
    sb = {f["phase"]: f.get("value") for f in s["figures"]}
    sb["score"] = s.get("score")
# Where each window went. Real: the share of IOR's window outside its
# transfers (open, close and the barriers between them, -g), of mdtest's
# after its slowest rank's last item (the "all" time over the slowest
# rank's: the closing barrier, and before it -Y's sync on the writes), and for
# find the share of the entries the busiest rank checked (pfind deals out
# directories). storbench: the share of the window outside the longest
# host's own run (start skew and spread).
res, spent = os.path.join(work, "io500-results"), {"real": {}, "storbench": {}}
md_op = {"write": "File creation", "stat": "File stat", "read": "File read", "delete": "File removal"}
for p in real:
    try:
        if p.startswith("ior-"):
            x = next(l.split() for l in open(os.path.join(res, p + ".txt")) if re.match(r"(read|write)\s+[0-9]", l))
            spent["real"][p] = 1 - float(x[7]) / float(x[9])
        elif p.startswith("mdtest-"):
            rows = list(csv.reader(open(os.path.join(res, p + ".csv"))))
            i = rows[0].index("time-" + md_op[p.rsplit("-", 1)[1]])
            t = {x[0]: float(x[i]) for x in rows[1:] if len(x) > i and x[i]}
            spent["real"][p] = 1 - max(v for k, v in t.items() if k != "all") / t["all"]
        elif p == "find":
            n = [int(x.split(",")[5]) for x in open(os.path.join(res, "find.csv")).readlines()[2:]]
            spent["real"][p] = max(n) / sum(n)
    except (OSError, StopIteration, ValueError, IndexError, KeyError, ZeroDivisionError):
        pass
for f in glob.glob(os.path.join(work, "sb" + r, "*", "summary.json")):
    for ph in json.load(open(f)).get("phases", []):
        h = [(x["start_ns"], x["end_ns"]) for x in ph.get("per_host") or [] if x.get("end_ns")]
        if h and max(e for _, e in h) > min(s for s, _ in h):
            spent["storbench"][ph["name"]] = 1 - max(e - s for s, e in h) / (max(e for _, e in h) - min(s for s, _ in h))
json.dump({"real": real, "storbench": sb, "spent": spent}, open(os.path.join(work, "round%s.json" % r), "w"))
if r == "1":
    print(next((l.strip() for l in open(os.path.join(work, "real1.txt")) if l.startswith("IO500 version")), "IO500: no version line"))
print("round %s: score real %s, storbench %s" % (r, real.get("score"), sb.get("score")))
PY
  if [ -n "$keep" ]; then
    mv "$work/io500-results" "$keep/real$r" && cp "$work/real$r.txt" "$keep/real$r/"
    mv "$work/sb$r" "$keep/sb$r" && cp "$work/sb$r.txt" "$keep/sb$r/"
  fi
  rm -rf "$work/sb$r"
  if lg_end "$r"; then echo "$r" >> "$work/kept"; fi
done
lg_summary || exit 0

python3 - "$work" <<'PY'
import json, os, statistics, sys
work = sys.argv[1]
# The rounds kept by the load gate (bench/loadgate.sh) alone.
kept = [int(l) for l in open(os.path.join(work, "kept"))]
rounds = len(kept)
rows = [json.load(open(os.path.join(work, "round%d.json" % r))) for r in kept]
phases = [p for p in rows[0]["real"] if p != "score"] + ["score"]
def med(side, p):
    v = [x[side].get(p) for x in rows]
    v = [x for x in v if x is not None]
    return (statistics.median(v), min(v), max(v), len(v)) if v else (None, None, None, 0)
print("\nmedians over %d rounds (GiB/s for ior-*, kIOPS for the rest), min-max in brackets" % rounds)
print("%-20s %28s %28s %7s %9s %s" % ("phase", "real", "storbench", "ratio", "per-round", "verdict (0.8-1.25x, ratio of medians)"))
for p in phases:
    (a, amin, amax, na), (b, bmin, bmax, nb) = med("real", p), med("storbench", p)
    if a is None or b is None:
        print("%-20s %28s %28s %7s absent in %d real, %d storbench rounds" % (p, a, b, "-", rounds - na, rounds - nb))
        continue
    ratio = b / a
    # Each round's storbench figure over the real one of the same round.
    own = [x["storbench"][p] / x["real"][p] for x in rows if x["storbench"].get(p) and x["real"].get(p)]
    per = "%9.2f" % statistics.median(own) if own else "%9s" % "-"
    rng = lambda lo, hi: "[%.3g-%.3g]" % (lo, hi)
    print("%-20s %9.4g %18s %9.4g %18s %7.2f %s %s" % (p, a, rng(amin, amax), b, rng(bmin, bmax), ratio, per, "within" if 0.8 <= ratio <= 1.25 else "OUTSIDE"))
def share(side, p):
    v = [x.get("spent", {}).get(side, {}).get(p) for x in rows]
    v = [x for x in v if x is not None]
    return "%5.0f%% [%3.0f-%3.0f%%]" % (100 * statistics.median(v), 100 * min(v), 100 * max(v)) if v else "%17s" % "-"
print("\nwhere the windows went (medians over the rounds, min-max in brackets):")
print("  real: the share of IOR's window outside its transfers (open, close and -g's barriers),")
print("  of mdtest's after the slowest rank's last item (its closing barrier; on the writes -Y's")
print("  sync too), and of find's entries checked by the busiest rank (pfind deals out directories);")
print("  storbench: the share of the window outside the longest host's own run (start skew, spread)")
print("%-20s %17s %17s" % ("phase", "real", "storbench"))
for p in phases[:-1]:
    print("%-20s %17s %17s" % (p, share("real", p), share("storbench", p)))
PY
