package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/testutil"
)

// fio gives up for want of CPU in the first of two phases ("fio seems to
// be stuck grabbing stat_sem, forcibly exiting", err=35, as a machine at
// load 55 made it in make demo's latency-write phase). The fio here is a
// fake around the real one: it runs the real fio, then says that line
// and fails, for the first phase only, since no test can starve fio on
// cue. storbench names the cause (this host's starved CPU, with its
// load), marks the phase so in summary.json and summary.md, and runs
// the next phase, whose figures are kept; the run fails (a phase's
// figures were lost). Before, the run ended at the first phase, which
// said only fio's line.
func TestFioStarvedPhaseSaidAndRunGoesOn(t *testing.T) {
	needFio(t)
	real, _ := exec.LookPath("fio")
	dir := t.TempDir()
	fake := filepath.Join(dir, "fio")
	script := "#!/bin/sh\n" + real + " \"$@\"\nrc=$?\ncase \"$*\" in *1-starved.gated*)\n" +
		"  echo 'fio seems to be stuck grabbing stat_sem, forcibly exiting' >&2\n" +
		"  echo 'fio: pid=1, err=35/file:backend.c:1, func=stat_sem, error=Resource deadlock avoided' >&2\n  exit 1;;\nesac\nexit $rc\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	w := workloadDir(t, map[string]string{"1-starved": quickJob("write", ""), "2-next": quickJob("write", "")})
	st, out := testState()
	res, err := runFio(testutil.Ctx(t, testutil.Bound), st, FioOptions{Dir: t.TempDir(), Workload: w, Tools: engine.Tools{"fio": fake}, Results: t.TempDir()}, nil)
	if err == nil || ExitCode(err) != ExitFailed || !strings.Contains(err.Error(), "starved CPU") {
		t.Fatalf("want a failed run naming the starved CPU, got %v\n%s", err, out)
	}
	if !strings.Contains(out.String(), "this host's CPU was starved") || !strings.Contains(out.String(), "load average") {
		t.Errorf("the cause and the load not said:\n%s", out)
	}
	if res == nil {
		t.Fatal("no results folder")
	}
	sum, err := results.ReadSummary(res.Folder.Path)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Phases) != 2 {
		t.Fatalf("%d phases in summary.json, want 2: the run stopped at the starved one", len(sum.Phases))
	}
	first, next := sum.Phases[0], sum.Phases[1]
	if first.Status != results.StatusFailed || len(first.ClientStarved) != 1 || !strings.Contains(first.ClientStarved[0].Why, "stat_sem") {
		t.Errorf("the starved phase: status %s, client_starved %+v; want failed, its host named with fio's words", first.Status, first.ClientStarved)
	}
	if next.Status != results.StatusCompleted || len(next.Ops) == 0 || next.Ops[0].Ops == 0 {
		t.Errorf("the next phase: status %s, ops %+v; want completed with its figures", next.Status, next.Ops)
	}
	md, err := os.ReadFile(filepath.Join(res.Folder.Path, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), results.StarvedMark) {
		t.Errorf("summary.md does not mark the starved phase:\n%s", md)
	}
}
