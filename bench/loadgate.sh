# Sourced by the side-by-side benches (fio-vs-storbench.sh,
# io500-vs-real.sh): the load each round ran under, and which rounds may
# give a verdict. On a busy machine one side can lose far more than the
# other (MPI ranks that poll lose more than storbench's agents, which wait
# in the kernel), so a ratio from such rounds says more of the load than
# of the tools. A round counts only when the 1-minute load average per
# core was at or below MAX_LOAD (0.75) at its start and at its end; with no
# such round the script says "machine too busy to conclude" and gives no
# ratio verdict. Each round's line gives the load per core at its start
# and end, the CPU steal over it (/proc/stat), and each side's CPU time
# (user + system of what the side ran, the shell's reaped children, and of
# processes that serve the side across rounds, such as storbench's agents,
# with their reaped children: fio).
#
#   lg_begin                    at a round's start
#   lg_side NAME [--pids 'P...'] CMD...
#                               runs CMD as side NAME, its CPU time kept,
#                               with what processes P... used meanwhile
#   lg_end ROUND                at its end: prints the round's load line,
#                               returns 0 when the round counts
#   lg_summary                  the kept rounds of all; returns 1 (after
#                               saying "machine too busy to conclude")
#                               when none was kept
MAX_LOAD=${MAX_LOAD:-0.75}
# As every bench script: no run of a bench lands in the user's catalog.
export STORBENCH_CATALOG=off
lg_cpus=$(nproc)
lg_kept=0
lg_all=0
lg_sides=""
python3 -c 'import sys; float(sys.argv[1])' "$MAX_LOAD" 2>/dev/null ||
  { echo "MAX_LOAD=$MAX_LOAD: give a load average per core, e.g. 0.75" >&2; exit 2; }

# The 1-minute load average per core now.
lg_load() { awk -v c="$lg_cpus" '{printf "%.2f", $1 / c}' /proc/loadavg; }
# The host's steal and all CPU time (ticks, all CPUs): /proc/stat's cpu
# line, user to steal (guest time is counted in user).
lg_stat() { awk '$1 == "cpu" {t = 0; for (i = 2; i <= 9; i++) t += $i; print $9, t; exit}' /proc/stat; }
# The CPU seconds of the shell's reaped children so far (bash's times,
# run in this shell: in a subshell it would count the subshell's alone).
lg_tmp=$(mktemp)
lg_children() {
  times > "$lg_tmp"
  awk 'NR == 2 {
    s = 0
    for (i = 1; i <= 2; i++) { split($i, p, "m"); sub("s", "", p[2]); s += p[1] * 60 + p[2] }
    printf "%.2f", s }' "$lg_tmp"
}

# The CPU seconds processes P... have used so far, with their reaped
# children (/proc/P/stat: utime, stime, cutime, cstime, after the command
# name, which may hold spaces); a process gone counts nothing.
lg_pids_cpu() {
  local tck
  tck=$(getconf CLK_TCK)
  for p in "$@"; do cat "/proc/$p/stat" 2>/dev/null; done |
    awk -v tck="$tck" '{sub(/^.*\) /, ""); t += $12 + $13 + $14 + $15} END {printf "%.2f", t / tck}'
}

lg_begin() {
  lg_l0=$(lg_load)
  read -r lg_s0 lg_t0 < <(lg_stat)
  lg_sides=""
}

# lg_side NAME [--pids 'P...'] CMD...: run CMD (in this shell, so its
# children's CPU time is counted) and keep its CPU seconds under NAME,
# with those processes P... used while it ran (a side whose work is done by
# processes started before it, which the shell reaps only at the end: the
# storbench side's agents and their fio). CMD's status is kept.
lg_side() {
  local lg_name=$1 lg_pids="" lg_c0 lg_c1 lg_p0 lg_p1 lg_rc=0
  shift
  if [ "${1:-}" = --pids ]; then
    lg_pids=$2
    shift 2
  fi
  # shellcheck disable=SC2086 # lg_pids is a list
  lg_p0=$(lg_pids_cpu $lg_pids)
  lg_children > "$lg_tmp.c0"
  "$@" || lg_rc=$?
  lg_children > "$lg_tmp.c1"
  # shellcheck disable=SC2086
  lg_p1=$(lg_pids_cpu $lg_pids)
  lg_c0=$(cat "$lg_tmp.c0") lg_c1=$(cat "$lg_tmp.c1")
  lg_sides="$lg_sides, $lg_name CPU $(awk -v a="$lg_c0" -v b="$lg_c1" -v p="$lg_p0" -v q="$lg_p1" 'BEGIN {printf "%.2f", b - a + q - p}') s"
  return "$lg_rc"
}

lg_end() { # round
  local l1 s1 t1 steal ok
  l1=$(lg_load)
  read -r s1 t1 < <(lg_stat)
  steal=$(awk -v s="$((s1 - lg_s0))" -v t="$((t1 - lg_t0))" 'BEGIN {if (t > 0) printf "%.1f%%", 100 * s / t; else print "absent"}')
  ok=$(awk -v a="$lg_l0" -v b="$l1" -v m="$MAX_LOAD" 'BEGIN {print (a <= m && b <= m) ? 1 : 0}')
  lg_all=$((lg_all + 1))
  if [ "$ok" = 1 ]; then
    lg_kept=$((lg_kept + 1))
    echo "    load round $1: per core $lg_l0 at start, $l1 at end, steal $steal$lg_sides: kept"
    return 0
  fi
  echo "    load round $1: per core $lg_l0 at start, $l1 at end, steal $steal$lg_sides: left out (above MAX_LOAD=$MAX_LOAD per core)"
  return 1
}

lg_summary() {
  if [ "$lg_kept" -eq 0 ]; then
    echo "machine too busy to conclude: none of $lg_all rounds had a load average per core at or below MAX_LOAD=$MAX_LOAD at its start and end ($lg_cpus cores); no verdict"
    return 1
  fi
  echo "verdict from $lg_kept of $lg_all rounds (load average per core at or below MAX_LOAD=$MAX_LOAD at their start and end, $lg_cpus cores)"
}
