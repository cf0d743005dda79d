package cluster_test

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// A controller stopped (SIGSTOP) longer than an agent waits for its
// heartbeat, then continued: the agent ends the phase, and the controller
// says why in its one line - its own heartbeats stopped - instead of only
// "every host was lost" or "context canceled" (issue 21).
func TestControllerPausedSaysWhy(t *testing.T) {
	c := startCluster(t, loopback(t, 1), nil, nil)
	cmd, out := c.controller(t, "md", "-d", t.TempDir(), "-n", "20000", "-t", "1", "-i", "3")
	if _, ok := c.agents[0].waitLog("phase md", 30*time.Second); !ok {
		t.Fatalf("the phase did not start:\n%s", out)
	}
	_ = cmd.Process.Signal(syscall.SIGSTOP)
	time.Sleep(8 * time.Second)
	_ = cmd.Process.Signal(syscall.SIGCONT)
	err := cmd.Wait()
	if exitCode(err) != 1 {
		t.Fatalf("exit %d, want 1:\n%s", exitCode(err), out)
	}
	last := out.String()
	if i := strings.LastIndex(strings.TrimSpace(last), "\n"); i >= 0 {
		last = strings.TrimSpace(last)[i+1:]
	}
	if !strings.Contains(last, "this controller sent no heartbeat for") || !strings.Contains(last, "SIGSTOP") {
		t.Errorf("the error line does not say the controller was stopped: %q\n%s", last, out)
	}
}
