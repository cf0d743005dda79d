#!/usr/bin/env bash
# Controller overhead, the figure of issue 5: AGENTS local agents (storbench
# agent on loopback ports) run one DURATION phase together, md or s3, and
# the controller process's CPU (user+sys, from the shell's `times` for its
# child) is divided by the wall time of the whole command. The quotient is
# the share of one core the controller used; the goal is under 2%. The
# whole command includes connecting, preparing, writing the results folder
# and cleanup, so the figure errs high.
#
#   s3: a local versitygw (--quiet --keep-alive), `s3 put` 4 KiB objects,
#       2 concurrent per agent, for DURATION; OP=get: `s3 get` of 200
#       prepared 4 KiB objects instead. A put phase's cleanup deletes
#       everything it wrote, and its length varies by seconds from run to
#       run (so does the controller's CPU, which is mostly per second of
#       wall time); a get phase's wall time varies little, which is what a
#       comparison of a few percent needs.
#   md: `md -F -u -W DURATION` (create stonewalled at DURATION, then stat,
#       read and remove what was created), 1 worker per agent
#
# Measured on the 2-core dev machine (load average 5-8 from other work),
# 4 agents, DURATION=30s:
#   s3 put: controller CPU 0.143s over 49.8s wall = 0.29% of one core
#   md:     controller CPU 0.191s over 49.4s wall = 0.39% of one core
#
# WATCH=on watches the run as issue 14 lets a user: every agent and the
# controller serve --metrics-listen on loopback, bench/scrape.py takes
# them all every second (SCRAPE_EVERY seconds) as Prometheus does (one
# kept-alive connection per target, Prometheus' Accept header: OpenMetrics;
# SCRAPE=protobuf asks for the protobuf format a Prometheus with native
# histograms wants), and the
# controller writes --live to a file. WATCH=metrics and WATCH=live are the
# two halves alone. The controller waits for one scrape after the run
# (about a second, in the wall time): compare CPU seconds, not shares.
#
# WATCH may list settings ("off on") and ROUNDS repeat them: the runs then
# alternate, setting by setting within each round, and the medians per
# setting follow, with each setting's ratio to "off" (the ratio of the
# medians, and the median of the rounds' ratios).
#
# usage: bench/controller-overhead.sh [STORBENCH_BIN]
#   env: ENGINE (s3 or md, default s3), AGENTS (default 4), DURATION (default 30s),
#        WATCH (off, on, metrics, live, or a list; default off), ROUNDS (default 1),
#        SCRAPE (openmetrics or protobuf, default openmetrics), SCRAPE_EVERY (seconds,
#        default 1), OP (put or get, default put)
set -euo pipefail
# The project's own benches index nothing: no bench run lands in the
# catalog of the user who runs it (TestTestsAndBenchesKeepOutOfTheUsersCatalog).
export STORBENCH_CATALOG=off
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/bin/storbench}
engine=${ENGINE:-s3}
agents=${AGENTS:-4}
duration=${DURATION:-30s}
watches=${WATCH:-off}
rounds=${ROUNDS:-1}
scrape_format=${SCRAPE:-openmetrics}
op=${OP:-put}
scrape_every=${SCRAPE_EVERY:-1}
for w in $watches; do
	case $w in off|on|metrics|live) ;; *) echo "WATCH: $w is none of off, on, metrics, live" >&2; exit 2 ;; esac
done
case $op in put|get) ;; *) echo "OP must be put or get" >&2; exit 2 ;; esac
case $scrape_format in openmetrics|protobuf) ;; *) echo "SCRAPE must be openmetrics or protobuf" >&2; exit 2 ;; esac
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS must be a whole number from 1" >&2; exit 2; }
[[ $scrape_every =~ ^[0-9]*\.?[0-9]+$ ]] && awk -v s="$scrape_every" 'BEGIN { exit !(s >= 0.05) }' ||
	{ echo "SCRAPE_EVERY must be seconds, at least 0.05" >&2; exit 2; }
case $engine in s3|md) ;; *) echo "ENGINE must be s3 or md" >&2; exit 2 ;; esac
[ -x "$bin" ] || (cd "$here" && go build -o "$bin" ./cmd/storbench)

work=$(mktemp -d)
pids=()
stopall() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	pids=()
}
trap 'stopall; rm -rf "$work"' EXIT
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$work/token"
chmod 600 "$work/token" # storbench refuses a token file others may read

# Throwaway keys for a loopback-only server; the agents read them from
# their environment, the controller never has them.
export ROOT_ACCESS_KEY=benchaccess ROOT_SECRET_KEY=benchsecret-$RANDOM$RANDOM

# one WATCH runs the phase once and appends "WATCH CPU WALL" to
# $work/figures.
one() {
	local watch=$1 s3port="" list=() scrape=() watchargs=() i port mport magent args
	rm -rf "$work/gw" "$work/data" "$work/results"
	if [ "$engine" = s3 ]; then
		local vgw=${STORBENCH_VERSITYGW:-$here/.tools/versitygw}
		[ -x "$vgw" ] || (mkdir -p "$here/.tools" && GOBIN=$here/.tools go install github.com/versity/versitygw/cmd/versitygw@v1.8.0)
		s3port=$(freeport)
		mkdir -p "$work/gw"
		"$vgw" --port "127.0.0.1:$s3port" --quiet --keep-alive posix "$work/gw" >"$work/vgw.log" 2>&1 &
		pids+=($!)
		sleep 1
	fi
	for i in $(seq 1 "$agents"); do
		port=$(freeport)
		magent=()
		if [ "$watch" = on ] || [ "$watch" = metrics ]; then
			mport=$(freeport)
			magent=(--metrics-listen "127.0.0.1:$mport")
			scrape+=("http://127.0.0.1:$mport/metrics")
		fi
		STORBENCH_ACCESS_KEY=$ROOT_ACCESS_KEY STORBENCH_SECRET_KEY=$ROOT_SECRET_KEY \
			"$bin" agent --listen "127.0.0.1:$port" --token-file "$work/token" "${magent[@]}" >"$work/agent$i.log" 2>&1 &
		pids+=($!)
		list+=("127.0.0.1:$port")
	done
	if [ "$watch" = on ] || [ "$watch" = live ]; then
		rm -f "$work/live.jsonl" # --live makes a new file; it refuses one that exists
		watchargs+=(--live "$work/live.jsonl")
	fi
	if [ "$watch" = on ] || [ "$watch" = metrics ]; then
		mport=$(freeport)
		watchargs+=(--metrics-listen "127.0.0.1:$mport")
		scrape+=("http://127.0.0.1:$mport/metrics")
		python3 "$here/bench/scrape.py" "$scrape_format" "$scrape_every" "${scrape[@]}" &
		pids+=($!)
	fi
	sleep 0.5
	mkdir -p "$work/data"
	case $engine in
	s3) args=(s3 "$op" --host "127.0.0.1:$s3port" --obj.size 4KiB --concurrent 2 --duration "$duration")
		[ "$op" = put ] || args+=(--objects 200) ;;
	md) args=(md -d "$work/data" -F -u -t 1 -n 1000000 -i 1 -W "$duration") ;;
	esac

	echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
	local start end cu cs
	start=$(date +%s.%N)
	(
		env -u ROOT_ACCESS_KEY -u ROOT_SECRET_KEY "$bin" "${args[@]}" --agents "$(IFS=,; echo "${list[*]}")" --token-file "$work/token" --results "$work/results" "${watchargs[@]}" >"$work/controller.log" 2>&1
		times >"$work/times"
	)
	end=$(date +%s.%N)
	echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
	grep -E "host |total|totals over|lost" "$work/controller.log" || true
	stopall
	# The second line of `times` is the children's user and system time.
	read -r cu cs < <(sed -n 2p "$work/times" | sed -E 's/([0-9]+)m([0-9.]+)s/\1 \2/g' | awk '{print $1*60+$2, $3*60+$4}')
	awk -v u="$cu" -v s="$cs" -v a="$start" -v b="$end" -v n="$agents" -v e="$engine" -v w="$watch" 'BEGIN {
		wall = b - a; cpu = u + s
		printf "%s phase on %d agents, watch %s: controller CPU %.3fs (user %.3fs, sys %.3fs) over %.1fs wall = %.2f%% of one core\n", e, n, w, cpu, u, s, wall, 100 * cpu / wall
		printf "%s %.4f %.2f\n", w, cpu, wall >> "'"$work/figures"'"
	}'
}

for r in $(seq 1 "$rounds"); do
	for w in $watches; do
		[ "$rounds" = 1 ] || echo "round $r, watch $w"
		one "$w"
	done
done
if [ "$rounds" != 1 ] || [ "$(echo $watches | wc -w)" != 1 ]; then
	python3 - "$work/figures" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
order, cpu = [], {}
for w, c, _ in rows:
    if w not in cpu:
        order.append(w)
    cpu.setdefault(w, []).append(float(c))
for w in order:
    v = cpu[w]
    line = f"median of {len(v)}, watch {w:8}: controller CPU {statistics.median(v):.3f}s ({min(v):.3f}-{max(v):.3f})"
    if w != "off" and "off" in cpu:
        pairs = [a / b for a, b in zip(v, cpu["off"])]
        line += f", ratio to off {statistics.median(v) / statistics.median(cpu['off']):.3f} (rounds: median {statistics.median(pairs):.3f}, {min(pairs):.3f}-{max(pairs):.3f})"
    print(line)
PY
fi
