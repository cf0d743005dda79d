package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/testutil"
)

// Event commands on the controller that fail, hang or say too much are
// bounded and reported, and the phase goes on: a command's exit status and
// output are kept (cut at 4 KiB), one that outlives its timeout is killed
// with whatever it started in the background, and an md phase that ends
// before its event's time records the event as not run instead of waiting
// for it.
func TestEventCommandsOnController(t *testing.T) {
	t.Parallel()
	needFio(t)
	data, res := t.TempDir(), t.TempDir()
	// A marker no other process has: the hung command's background child.
	child := fmt.Sprintf("sleep %d.%d", 1000+os.Getpid()%1000, time.Now().Nanosecond()%1000)
	suite := fmt.Sprintf(`name: controller-events
dir: %s
phases:
  - name: read
    fio: {runtime: 4s, job: {rw: read, bs: 4k, size: 1m, time_based: 1}}
    events:
      - {name: fails, at: 1s, command: "echo broken >&2; exit 3"}
      - {name: hangs, at: 1s, timeout: 1s, command: "%s & sleep 600"}
      - {name: chatty, after: 50%%, command: "head -c 10000 /dev/zero | tr '\\0' x"}
  - name: meta
    md: {items: 20}
    events:
      - {name: too late, at: 300s, command: "touch %s/late"}
`, data, child, data)
	file := filepath.Join(t.TempDir(), "suite.yaml")
	if err := os.WriteFile(file, []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	st, out := testState()
	start := time.Now()
	if err := Execute(context.Background(), st, []string{"run", file, "--results", res}); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// Waiting for the late event would take 300 s; the phases take
	// seconds, and half a minute at a load of 30 (a bound of 25 s failed).
	if took := time.Since(start); took > 150*time.Second {
		t.Errorf("the run took %s: it waited for an event past its phase (due at 300 s)", took)
	}
	folders, _ := filepath.Glob(filepath.Join(res, "*"))
	if len(folders) != 1 {
		t.Fatalf("results: %v", folders)
	}
	sum, err := results.ReadSummary(folders[0])
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]model.PhaseEvent{}
	for _, p := range sum.Phases {
		if p.Status != results.StatusCompleted {
			t.Errorf("phase %s %s: %s", p.Name, p.Status, p.Error)
		}
		for _, e := range p.Events {
			byName[e.Name] = e
		}
	}
	if e := byName["fails"]; e.Exit == nil || *e.Exit != 3 || e.Output != "broken\n" || e.Error == "" {
		t.Errorf("fails: exit %v, output %q, error %q", e.Exit, e.Output, e.Error)
	}
	// Killed at its timeout (1 s), not at its own end (600 s): the bound
	// is far from both, as the kill's lateness under load (3.5 s failed).
	if e := byName["hangs"]; e.Exit != nil || !strings.Contains(e.Error, "timed out after 1s") || e.StartS == nil || e.EndS == nil || *e.EndS-*e.StartS > 60 {
		t.Errorf("hangs: exit %v, error %q, ran %s to %s s", e.Exit, e.Error, fmtSec(e.StartS), fmtSec(e.EndS))
	}
	if e := byName["chatty"]; len(e.Output) != model.EventOutputMax || !e.Truncated || e.StartS == nil || *e.StartS < 1.9 {
		t.Errorf("chatty: %d bytes of output, truncated %v, started at %v s (due at 50%% of 4s)", len(e.Output), e.Truncated, e.StartS)
	}
	if e := byName["too late"]; e.StartS != nil || !strings.Contains(e.Error, "not run: the phase's load ended") {
		t.Errorf("too late: started %v, error %q", e.StartS, e.Error)
	}
	if _, err := os.Stat(filepath.Join(data, "late")); err == nil {
		t.Error("the event past its phase ran")
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, _ := os.ReadFile(p); strings.ReplaceAll(string(b), "\x00", " ") == child+" " {
			t.Errorf("the hung command's child is still running: %s", p)
		}
	}
	for _, want := range []string{"event fails at 1.", "failed: exit status 3", "event hangs", "timed out after 1s: killed", "event too late (due at 300.0s on controller): not run"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the run does not say %q:\n%s", want, out)
		}
	}
}

// The brick-loss suite of docs/events.md, as the Gluster harness will run
// it (a brick killed 5 s into a 20-s phase, restarted at 12 s): it
// parses, and --dry-run shows both events at their times with their
// commands.
func TestEventsDocExample(t *testing.T) {
	t.Parallel()
	needFio(t)
	root, err := testutil.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "events.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(doc), "```yaml\n")
	block, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatal("docs/events.md has no yaml block")
	}
	file := filepath.Join(t.TempDir(), "brick.yaml")
	if err := os.WriteFile(file, []byte(block), 0o644); err != nil {
		t.Fatal(err)
	}
	st, out := testState()
	if err := Execute(context.Background(), st, []string{"run", file, "--dry-run", "-d", t.TempDir()}); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{`event "hang brick" at 5s: run "gluster --mode=script volume status gv0`, `xargs -r kill -STOP" on the controller`,
		`event "restart brick" at 12s: run "gluster --mode=script volume status gv0`, `xargs -r kill -KILL; gluster --mode=script volume start gv0 force" on the controller (timeout 1m0s)`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--dry-run does not say %q:\n%s", want, out)
		}
	}
}

// fmtSec is a time in seconds that may be absent.
func fmtSec(s *float64) string {
	if s == nil {
		return "absent"
	}
	return fmt.Sprintf("%.2f", *s)
}
