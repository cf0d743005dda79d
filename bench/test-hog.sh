#!/usr/bin/env bash
# Runs a command beside a CPU hog: two busy loops per core, started before
# the command and stopped after it whatever happens (its failure, Ctrl-C,
# a kill of this script), then prints the command's wall time and the load
# averages at its start and end. `make test-hog` runs `make test` so
# (issue 37: the tests must pass on a machine other work keeps busy, as CI
# runs right after development work); any other command may be given:
#
#   bench/test-hog.sh go test -count=5 -run TestPrerunCommand ./internal/engine/fio/
#
# HOGS_PER_CORE=2 changes the loops per core. The command's exit status is
# the script's.
set -u
# As every bench script: no run of a bench lands in the user's catalog.
export STORBENCH_CATALOG=off

if [ $# -eq 0 ]; then
  echo "usage: bench/test-hog.sh COMMAND [ARG...] (e.g. make test)" >&2
  exit 2
fi
per=${HOGS_PER_CORE:-2}
case $per in
  '' | *[!0-9]*)
    echo "HOGS_PER_CORE=$per: give a whole number of busy loops per core, e.g. 2" >&2
    exit 2
    ;;
esac
cores=$(nproc)
hogs=()
stop() {
  if [ ${#hogs[@]} -gt 0 ]; then
    kill "${hogs[@]}" 2>/dev/null
    wait "${hogs[@]}" 2>/dev/null
    hogs=()
  fi
}
# EXIT covers the command's end and a failure of this script.
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

for ((i = 0; i < per * cores; i++)); do
  # A subshell spinning in the shell's own loop: no child to orphan, and
  # the kill above ends it.
  (while :; do :; done) &
  hogs+=($!)
done
echo "test-hog: $((per * cores)) busy loops on $cores cores (pids ${hogs[*]})"
echo "test-hog: load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "test-hog: running: $*"
t0=$(date +%s)
# The command runs as a job of its own (set -m: its own process group, and
# SIGINT not ignored as a job without job control would have it), so that
# Ctrl-C or a TERM here reaches it at once and the loops stop now, not
# after the command's own end: a foreground command would hold the traps
# until it ended.
set -m
"$@" &
cmd=$!
got=""
trap 'got=130; kill -INT -- "-$cmd" 2>/dev/null' INT
trap 'got=143; kill -TERM -- "-$cmd" 2>/dev/null' TERM
wait "$cmd"
rc=$?
if [ -n "$got" ]; then
  stop
  wait "$cmd" 2>/dev/null
  rc=$got
fi
t1=$(date +%s)
echo "test-hog: load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "test-hog: '$*' exited $rc after $((t1 - t0)) s wall beside the hog"
exit "$rc"
