#!/bin/sh
# Analyse a 10-million-request s3 benchdata file (or, with FORMAT warp, a
# file in warp's CSV format) with `storbench analyze` and report peak RSS
# (target: under 300 MB) and analysis throughput (target: at least 1 million
# requests per second on 2 cores).
# Usage: bench/analyze-benchdata.sh [bin/storbench] [requests] [storbench|warp]
set -eu
# The project's own benches index nothing: no bench run lands in the
# catalog of the user who runs it (TestTestsAndBenchesKeepOutOfTheUsersCatalog).
export STORBENCH_CATALOG=off
BIN=${1:-bin/storbench}
N=${2:-10000000}
FORMAT=${3:-storbench}
DIR=${TMPDIR:-/tmp}/storbench-analyze-bench
mkdir -p "$DIR"
case $FORMAT in
storbench) FILE=$DIR/bench-$N.tsv.zst ;;
warp) FILE=$DIR/bench-$N.csv.zst ;;
*) echo "format $FORMAT: want storbench or warp" >&2; exit 2 ;;
esac
[ -x "$BIN" ] || go build -o "$BIN" ./cmd/storbench
if [ ! -s "$FILE" ]; then
	echo "generating $FILE ($N requests)"
	go run ./bench/gen-benchdata -n "$N" -format "$FORMAT" -o "$FILE"
fi
ls -l "$FILE"
/usr/bin/time -v "$BIN" analyze "$FILE" >"$DIR/analysis.txt" 2>"$DIR/time.txt"
head -20 "$DIR/analysis.txt"
rss_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$DIR/time.txt")
wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$DIR/time.txt")
secs=$(echo "$wall" | awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }')
echo "requests: $N"
echo "wall: ${secs}s"
echo "peak RSS: $((rss_kb / 1024)) MB"
awk -v n="$N" -v s="$secs" 'BEGIN { printf "analysis throughput: %.0f requests/s\n", n / s }'
