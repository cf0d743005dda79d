package cluster_test

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/testutil"
)

// Every agent told to stop (SIGTERM) at once mid-phase while their
// controller is gone (stopped, SIGSTOP, then killed): each asks whether
// other hosts still run the phase and hears nothing, so each takes itself
// for the phase's last and removes what the hosts share (md's one tree),
// whatever its rank. Nothing of the run is left under DIR. Agents that
// left it to a run-level cleanup no one was there to do left the tree.
func TestStoppedAgentsWithoutControllerLeaveNothing(t *testing.T) {
	t.Parallel()
	c := startCluster(t, loopback(t, 3), nil, nil)
	data := t.TempDir()
	cmd, out := c.controller(t, "md", "-d", data, "-n", "1000000", "-F")
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	// Mid-phase: the live line shows files being created.
	if !out.WaitFor("file-create ", testutil.Bound) {
		t.Fatalf("no file-create in the live line:\n%s", out)
	}
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for _, a := range c.agents {
		_ = a.cmd.Process.Signal(syscall.SIGTERM)
	}
	for i, a := range c.agents {
		select {
		case <-a.done:
		case <-time.After(testutil.Bound):
			t.Fatalf("agent %d still runs %v after SIGTERM:\n%s", i, testutil.Bound, a)
		}
	}
	for i, a := range c.agents {
		if _, ok := a.waitLog("no answer from the controller", time.Second); !ok {
			t.Errorf("agent %d did not say it had no answer:\n%s", i, a)
		}
	}
	ents, err := os.ReadDir(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) > 0 {
		find, _ := exec.Command("find", data).CombinedOutput()
		var logs []string
		for _, a := range c.agents {
			logs = append(logs, a.String())
		}
		t.Errorf("left under DIR after every agent stopped:\n%s\nagents:\n%s", find, strings.Join(logs, "\n"))
	}
}
