#!/usr/bin/env bash
# The controller driving AGENTS agents (issue 15, item 5; issue 37): its CPU
# (cores: CPU seconds per second of wall time), RSS, open files and
# goroutines in every second of a phase's run stage, the live line's
# cadence and last figures, and the bytes on the wire per agent. The agents
# are real agent servers speaking the protocol on loopback ports, in farm
# processes of at most PER_FARM agents each (two descriptors an agent: a
# process here may open at most 20,000), with a fake engine that sends one
# snapshot a second without doing any I/O (bench/controllerscale says
# more). The controller holds one connection per agent (HTTP/2), so 10,000
# agents fit. Goals at 1,000 agents: under 1 core and under 1 GiB.
#
# The controller and the farms run at nice -10 when root. On a shared
# machine whose CPUs are oversubscribed (the dev machine: load average
# 20-30 on 2 cores from other work) both can still wait seconds for a CPU;
# then heartbeats miss the agents' timeout, agents stop the phase, and the
# run fails: HB_TIMEOUT=30s (the one knob: the agents' timeout, and the
# controller's own silence two seconds more) lets the measurement finish
# there, and the heartbeat gaps it prints say how long the waits were.
# README, "Scale", has the figures.
#
# usage: bench/controller-scale.sh
#   env: AGENTS (default 1000), SECONDS_RUN (default 30), OPS (operations
#   per snapshot, default 4), PER_FARM (agents per farm process, default
#   2500), HB_TIMEOUT (the heartbeat timeout, default 3s as in storbench),
#   CPUPROFILE and MEMPROFILE (files for the controller's CPU profile and
#   its heap profile at the run stage's start: go tool pprof reads them)
set -euo pipefail
# The project's own benches index nothing: no bench run lands in the
# catalog of the user who runs it (TestTestsAndBenchesKeepOutOfTheUsersCatalog).
export STORBENCH_CATALOG=off
here=$(cd "$(dirname "$0")/.." && pwd)
bin=$(mktemp -d)/controllerscale
(cd "$here" && go build -o "$bin" ./bench/controllerscale)
prio=()
if [ "$(id -u)" -eq 0 ]; then
	prio=(nice -n -10)
	# With the kernel's autogroups (sched_autogroup_enabled=1, the default
	# on desktop and many server kernels), a nice value ranks a process only
	# within its session's group, and each session's group gets an equal
	# share of the CPUs: nice -10 alone left the controller unscheduled for
	# 31.9 s beside other sessions' work at a load of 26. The group's own
	# nice (this session: the bench and its farms) ranks the group.
	if [ -w /proc/self/autogroup ]; then echo -10 >/proc/self/autogroup || true; fi
fi
ulimit -n "$(ulimit -Hn)"
"${prio[@]}" "$bin" -agents "${AGENTS:-1000}" -seconds "${SECONDS_RUN:-30}" -ops "${OPS:-4}" -per-farm "${PER_FARM:-2500}" -hb-timeout "${HB_TIMEOUT:-3s}" \
	-cpuprofile "${CPUPROFILE:-}" -memprofile "${MEMPROFILE:-}"
rm -rf "$(dirname "$bin")"
