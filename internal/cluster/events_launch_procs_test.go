package cluster_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/testutil"
)

// An event command on a host whose agent `storbench run --launcher
// mpiexec` starts (MPICH's real mpiexec, two ranks on this machine): the
// agents a launcher starts cannot be given `agent --allow-events` by
// hand, so without `run --allow-events` the suite is refused before any
// load (exit 2, one line naming the flag to give, no results folder,
// nothing run); with it the command runs on that agent - in the agent's
// process tree, under the supervisor the agent started it with, as the
// command line of its parent's parent shows, started with --allow-events
// - and summary.json records it on that host. Given where
// the run starts no agent, --allow-events is refused (exit 2): it would
// grant nothing.
func TestLaunchedAgentsAllowEvents(t *testing.T) {
	needMPICH(t)
	bin := testutil.StorbenchBin(t)
	dir := t.TempDir()
	hostfile := filepath.Join(dir, "hosts")
	if err := os.WriteFile(hostfile, []byte("localhost:2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mark := filepath.Join(dir, "ran")
	suite := filepath.Join(dir, "suite.yaml")
	if err := os.WriteFile(suite, []byte(fmt.Sprintf(`name: launched-event
dir: %s
phases:
  - name: create
    md: {items: 200000, files_only: true, stonewall: 3s, only: [create]}
    events:
      - {name: probe, at: 1s, host: localhost-1, command: "tr '\\0' ' ' < /proc/$(cut -d' ' -f4 /proc/$PPID/stat)/cmdline > %s"}
`, t.TempDir(), mark)), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(extra ...string) (int, string, string) {
		res := t.TempDir()
		args := append([]string{"run", suite, "--results", res}, extra...)
		code, out := runExit(t, exec.Command(bin, args...))
		return code, out, res
	}

	code, out, res := run("--launcher", "mpiexec", "--hostfile", hostfile)
	last := strings.TrimSpace(out)
	if i := strings.LastIndex(last, "\n"); i >= 0 {
		last = last[i+1:]
	}
	if code != 2 || !strings.Contains(last, "agent localhost-1 does not run event commands") || !strings.Contains(last, "storbench run --allow-events") {
		t.Errorf("without --allow-events: exit %d, last line %q, want 2 and the flag to give:\n%s", code, last, out)
	}
	if ents, _ := os.ReadDir(res); len(ents) != 0 {
		t.Errorf("a refused run left %v in the results folder", ents)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("the refused run ran the event's command")
	}

	code, out, _ = run("--launcher", "mpiexec", "--hostfile", hostfile, "--allow-events")
	if code != 0 {
		t.Fatalf("with --allow-events: exit %d\n%s", code, out)
	}
	cmdline, err := os.ReadFile(mark)
	if err != nil || !strings.Contains(string(cmdline), " agent --launched-by mpiexec --allow-events") {
		t.Errorf("the command did not run under a launched agent allowing events: %q (%v)", cmdline, err)
	}
	ev := summaryOf(t, folderOf(t, out)).Phases[0].Events
	if len(ev) != 1 || ev[0].Host != "localhost-1" || ev[0].Exit == nil || *ev[0].Exit != 0 {
		t.Errorf("summary.json events %+v, want probe on localhost-1, exit 0", ev)
	}
	if pids := agentPIDs(bin); len(pids) != 0 {
		t.Errorf("agents still run after the run: %v", pids)
	}

	code, out, _ = run("--allow-events")
	if code != 2 || !strings.Contains(out, "--allow-events is for the agents this run starts (--ssh, --launcher)") {
		t.Errorf("--allow-events without a launcher: exit %d, want 2 saying what it is for:\n%s", code, out)
	}
}
