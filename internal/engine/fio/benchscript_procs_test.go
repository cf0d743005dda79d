package fio_test

import (
	"os"
	"path/filepath"
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
