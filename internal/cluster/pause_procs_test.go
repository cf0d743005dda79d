package cluster_test

import (
	"os"
	"os/exec"
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

// A machine starved as a whole (issue 37: load 23 on 2 cores) stops the
// controller and the agent together: here both are stopped (SIGSTOP) for
// 8 s, past the 3 s heartbeat timeout and the controller's 5 s silence,
// then continued one after the other. Neither side may count that time
// against the other: the controller beat, and the agent talked, whenever
// they ran. Before, the controller continued first found the agent silent
// past its 5 s at once and called it lost, and an agent continued first
// found no beat for 8 s on its second tick and stopped its phase.
func TestMachineStoppedAsAWholeLosesNoOne(t *testing.T) {
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed")
	}
	for _, tc := range []struct {
		name  string
		first int // 0: the controller continues first, 1: the agent
		gap   time.Duration
	}{
		{"controller continued first", 0, 300 * time.Millisecond},
		{"agent continued first", 1, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startCluster(t, loopback(t, 1), nil, nil)
			cmd, out := c.controller(t, "fio", "-d", t.TempDir(), "-w", quickJob(t, c.dir, 20))
			if !out.WaitFor("[rr20]", 60*time.Second) {
				t.Fatalf("no live progress:\n%s", out)
			}
			procs := []*os.Process{cmd.Process, c.agents[0].cmd.Process}
			for _, p := range procs {
				_ = p.Signal(syscall.SIGSTOP)
			}
			time.Sleep(8 * time.Second)
			_ = procs[tc.first].Signal(syscall.SIGCONT)
			continued := time.Now()
			time.Sleep(tc.gap)
			_ = procs[1-tc.first].Signal(syscall.SIGCONT)
			// The side continued first ran alone meanwhile, as it would
			// beside a side really stopped: past 2 s of the agent's 3-s
			// timeout (this process slept long on a busy machine) its
			// losing the other would be right.
			gap := time.Since(continued)
			if code := exitCode(cmd.Wait()); gap > 2*time.Second {
				t.Skipf("the two sides were continued %v apart (this process slept past its %v): nothing to conclude (exit %d)", gap.Round(time.Millisecond), tc.gap, code)
			} else if code != 0 {
				t.Fatalf("exit %d, want 0: a stop of both sides is no one's loss:\n%s", code, out)
			}
			if strings.Contains(c.agents[0].String(), "stopping the phase") {
				t.Errorf("the agent stopped its phase:\n%s", c.agents[0])
			}
		})
	}
}
