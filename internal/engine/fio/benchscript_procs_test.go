package fio_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/testutil"
)

// bench/fio-vs-storbench.sh says the load each round ran under and gives
// its medians only from rounds at or below MAX_LOAD per core: here one
// round with a MAX_LOAD no load can meet (-1), then one every load meets.
// The first prints its load figures, each side's CPU time and "machine too
// busy to conclude", and no median; the second its median. Before, the
// script gave its ratio whatever the load (issue 37: a ratio of 1.95 at
// load 12-26 where a quiet machine gave 0.98).
func TestBenchScriptConcludesOnlyFromQuietRounds(t *testing.T) {
	bin := storbenchBin(t)
	root, err := testutil.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(root, "bench", "fio-vs-storbench.sh")
	run := func(maxLoad string) string {
		t.Helper()
		cmd := testutil.Command(t, "bash", script, bin, t.TempDir())
		cmd.Env = append(os.Environ(), "ROUNDS=1", "RUNTIME=1", "SIZE=256k", "MAX_LOAD="+maxLoad)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("MAX_LOAD=%s: %v\n%s", maxLoad, err, out)
		}
		return string(out)
	}
	busy := run("-1")
	for _, want := range []string{"load round 1: per core", "steal", "fio CPU", "storbench CPU", "left out", "machine too busy to conclude"} {
		if !strings.Contains(busy, want) {
			t.Errorf("a round above MAX_LOAD: %q not said:\n%s", want, busy)
		}
	}
	if strings.Contains(busy, "median of") {
		t.Errorf("a verdict from a round above MAX_LOAD:\n%s", busy)
	}
	quiet := run("1000")
	if !strings.Contains(quiet, "kept") || !strings.Contains(quiet, "median of 1 rounds") || strings.Contains(quiet, "too busy") {
		t.Errorf("a round within MAX_LOAD gave no verdict:\n%s", quiet)
	}
}

// bench/loadgate.sh counts, in a side's CPU time, what processes that
// serve the side across rounds used while it ran (lg_side --pids): the
// storbench side of io500-vs-real.sh is done by agents started before
// the rounds, and the shell's reaped children (the run command alone)
// had counted 0.2 s of its 2.2 s. A worker started before the side burns
// CPU while the side waits for it, then stays; the side's printed CPU
// must hold what the worker says it used.
func TestLoadgateCountsTheSidesServingProcesses(t *testing.T) {
	root, err := testutil.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script := `set -eu
. "$1/bench/loadgate.sh"
python3 -c '
import sys, time
s = 0
for i in range(6 * 10**6): s += i
open(sys.argv[1] + "/used.tmp", "w").write("%.3f" % time.process_time())
import os; os.rename(sys.argv[1] + "/used.tmp", sys.argv[1] + "/used")
time.sleep(60)' "$2" &
worker=$!
wait_worker() { while [ ! -e "$2/used" ]; do sleep 0.05; done; }
lg_begin
lg_side served --pids "$worker" wait_worker "$1" "$2"
lg_end 1 || true
kill "$worker"
`
	cmd := testutil.Command(t, "bash", "-c", script, "loadgate", root, dir)
	cmd.Env = append(os.Environ(), "MAX_LOAD=1000")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	used, err := os.ReadFile(filepath.Join(dir, "used"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`served CPU ([0-9.]+) s`).FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("no CPU of the side printed:\n%s", out)
	}
	side, _ := strconv.ParseFloat(m[1], 64)
	worker, _ := strconv.ParseFloat(string(used), 64)
	t.Logf("the side's CPU %.2f s, its serving process's own count %.2f s", side, worker)
	// The worker's own count is taken just before its end, the side's
	// after it: at least 90% of it (ticks of 10 ms round both).
	if side < 0.9*worker-0.02 {
		t.Errorf("the side's CPU is %.2f s; its serving process used %.2f s meanwhile:\n%s", side, worker, out)
	}
}
