package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/testutil"
)

// orphanSuite is a suite of one long fio phase on dir whose events, on
// host (the controller when ""), run a command that sleeps and one that
// also ignores SIGTERM.
func orphanSuite(t *testing.T, dir, agent, host string) string {
	t.Helper()
	agents, on := "", ""
	if agent != "" {
		agents = "agents: [" + agent + "]\n"
	}
	if host != "" {
		on = ", host: " + host
	}
	return writeSuite(t, fmt.Sprintf(`name: orphan-events
dir: %s
%sphases:
  - name: long
    fio: {runtime: 60s, job: {rw: read, bs: 4k, size: 1m, time_based: 1}}
    events:
      - {name: plain, at: 1s, command: "sleep 301"%s}
      - {name: trapped, at: 1s, command: "trap '' TERM; sleep 302"%s}
`, dir, agents, on, on))
}

// shmDir is a directory on tmpfs when there is one, so that fio's job
// processes never wait for a disk when killed.
func shmDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("/dev/shm", "storbench-orphan-events-")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() { _ = os.RemoveAll(d) })
	return d
}

// SIGKILL of the controller while its events' commands run (one of them
// ignoring SIGTERM) leaves no process of its own 2 s later (plus four
// wake-ups as late as this machine's, NoneMarkedWithin): not the
// commands, not what they started, not fio (issue 32: the commands ran
// on with parent 1).
func TestEventCommandsDieWithController(t *testing.T) {
	t.Parallel()
	needFio(t)
	bin := testutil.StorbenchBin(t)
	mark := testutil.ProcMark()
	ctrl := exec.Command(bin, "run", orphanSuite(t, shmDir(t), "", ""), "--results", t.TempDir())
	ctrl.Env = append(os.Environ(), mark)
	out := &testutil.Buffer{}
	ctrl.Stdout, ctrl.Stderr = out, out
	if err := ctrl.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ctrl.Process.Kill(); _ = ctrl.Wait() }()
	testutil.WaitMarked(t, mark, 3, 2*time.Minute, "sleep 301", "sleep 302", "--output-format=json+")
	_ = ctrl.Process.Signal(syscall.SIGKILL)
	killed := time.Now()
	_ = ctrl.Wait()
	testutil.NoneMarkedWithin(t, mark, killed, 2*time.Second)
	if t.Failed() {
		t.Logf("the controller said:\n%s", out)
	}
}

// SIGKILL of the agent that runs the events' commands leaves no process
// of the agent's 2 s later (plus four wake-ups as late as this
// machine's), while the controller lives on.
func TestEventCommandsDieWithAgent(t *testing.T) {
	t.Parallel()
	needFio(t)
	bin := testutil.StorbenchBin(t)
	mark := testutil.ProcMark()
	const token = "sb-orphan-token-0123456789abcdef"
	addr, agent := testutil.StartAgent(t, bin, token, []string{mark}, "--allow-events")
	tok := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tok, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctrl := exec.Command(bin, "run", orphanSuite(t, shmDir(t), addr, addr), "--token-file", tok, "--results", t.TempDir())
	out := &testutil.Buffer{}
	ctrl.Stdout, ctrl.Stderr = out, out
	if err := ctrl.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ctrl.Process.Kill(); _ = ctrl.Wait() }()
	testutil.WaitMarked(t, mark, 4, 2*time.Minute, "sleep 301", "sleep 302", "--output-format=json+")
	_ = agent.Process.Signal(syscall.SIGKILL)
	killed := time.Now()
	testutil.NoneMarkedWithin(t, mark, killed, 2*time.Second)
	if t.Failed() {
		t.Logf("the controller said:\n%s", out)
	}
}
