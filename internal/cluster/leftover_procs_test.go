package cluster_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/testutil"
)

// twoJobs writes a workload directory of two fio jobs, a and b, of
// runtime seconds each (a's, then b's).
func twoJobs(t *testing.T, runtime ...int) string {
	t.Helper()
	dir := t.TempDir()
	for i, n := range []string{"a", "b"} {
		b, err := os.ReadFile(quickJob(t, t.TempDir(), runtime[i]))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n+".job"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// waitHostLoad waits until the controller's live line (every second with
// -v) shows host doing operations in phase: its per-host rate above 0.
// That is the run stage, with I/O done: waiting a fixed time after the
// phase's files appeared fell in the preparation on a busy machine (fio
// lays the files out then), where a signal stops a preparation, not a
// run.
func waitHostLoad(t *testing.T, out *testutil.Buffer, phase, host string) {
	t.Helper()
	re := regexp.MustCompile(`(?m)^\[` + regexp.QuoteMeta(phase) + `\] .*per host op/s: (.*, )?` + regexp.QuoteMeta(host) + ` [1-9]`)
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if re.MatchString(out.String()) {
			return
		}
	}
	t.Fatalf("no load on %s in phase %s:\n%s", host, phase, out)
}

func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// Item 12: an agent told to stop (SIGTERM) mid-phase ends its phase, sends
// what it measured marked as stopped, cleans up and exits; the controller
// keeps that partial result, says so, runs the next phase without it, and
// the run does not fail.
func TestClusterAgentSIGTERM(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed")
	}
	c := startCluster(t, loopback(t, 3), nil, nil)
	data := t.TempDir()
	// Phase b only has to run on the two others: 2 s is enough.
	cmd, out := c.controller(t, "fio", "-v", "-d", data, "-w", twoJobs(t, 8, 2))
	// Mid-run: that host has measured I/O (of 8 s).
	waitHostLoad(t, out, "a", strings.ReplaceAll(c.tp.addrs[1], ":", "-"))
	_ = c.agents[1].cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.agents[1].done:
	case <-time.After(20 * time.Second):
		t.Errorf("the agent did not exit within 20 s of SIGTERM:\n%s", c.agents[1])
	}
	if code := exitCode(cmd.Wait()); code != 0 {
		t.Errorf("controller exit %d, want 0 (nothing was left behind):\n%s", code, out)
	}
	s := summaryOf(t, folderOf(t, out.String()))
	if len(s.Phases) != 2 {
		t.Fatalf("%d phases, want both:\n%s", len(s.Phases), out)
	}
	p1, p2 := s.Phases[0], s.Phases[1]
	if len(p1.StoppedHosts) != 1 {
		t.Fatalf("phase 1 stopped hosts %v:\n%s", p1.StoppedHosts, out)
	}
	stopped := p1.StoppedHosts[0]
	found := false
	for _, h := range p1.PerHost {
		if h.Host == stopped {
			found = true
			if len(h.Ops) == 0 || h.Ops[0].Ops == 0 || !strings.Contains(h.Error, "stopped by a signal") {
				b, _ := os.ReadFile(filepath.Join(folderOf(t, out.String()), p1.Dir, "hosts", h.Host, "result.json"))
				t.Errorf("the stopped host's partial result: %+v\n%s", h, b)
			}
		}
	}
	if !found || len(p1.Ops) == 0 {
		t.Errorf("phase 1 lacks the stopped host's result: %+v", p1.PerHost)
	}
	if len(p1.Leftovers) != 0 {
		t.Errorf("leftovers after a stop that cleaned up: %+v", p1.Leftovers)
	}
	for _, h := range p2.Hosts {
		if h == stopped {
			t.Errorf("phase 2 ran on the stopped host %s", h)
		}
	}
	if len(p2.Hosts) != 2 {
		t.Errorf("phase 2 ran on %v, want the two others", p2.Hosts)
	}
	if !strings.Contains(out.String(), "host "+stopped+": agent stopped (terminated signal received); its result so far is kept") {
		t.Errorf("the output does not say the host was stopped:\n%s", out)
	}
	if ents, _ := os.ReadDir(data); len(ents) != 0 {
		t.Errorf("DIR holds %v after the run", ents)
	}
}

// Item 17: a host killed mid-phase leaves its files: the output and
// summary.json say which host and where, and the run exits 1. Item 4:
// what cleanup cannot remove on a live agent is reported with its count.
func TestClusterLeftoversAreReported(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed")
	}
	t.Run("lost host", func(t *testing.T) {
		c := startCluster(t, loopback(t, 3), nil, nil)
		data := t.TempDir()
		cmd, out := c.controller(t, "fio", "-d", data, "-w", quickJob(t, c.dir, 5))
		// Mid-run: once the live line shows the run stage (its first
		// line comes a second into it), not a fixed time after the
		// phase began, which fell in its preparation on a busy machine.
		if !out.WaitFor("[rr5]", 90*time.Second) {
			t.Fatalf("no live progress:\n%s", out)
		}
		_ = c.agents[1].cmd.Process.Kill()
		if code := exitCode(cmd.Wait()); code != 1 {
			t.Errorf("exit %d, want 1:\n%s", code, out)
		}
		s := summaryOf(t, folderOf(t, out.String()))
		ph := s.Phases[0]
		if len(ph.LostHosts) != 1 || len(ph.Leftovers) != 1 {
			t.Fatalf("lost %v, leftovers %+v:\n%s", ph.LostHosts, ph.Leftovers, out)
		}
		l := ph.Leftovers[0]
		want := filepath.Join(data, "storbench", s.RunID, ph.LostHosts[0])
		if l.Host != ph.LostHosts[0] || !strings.HasPrefix(l.Where, want+"/") {
			t.Errorf("leftover %+v, want on %s under %s", l, ph.LostHosts[0], want)
		}
		if _, err := os.Stat(l.Where); err != nil {
			t.Errorf("the place named does not hold the lost host's files: %v", err)
		}
		if !strings.Contains(out.String(), "left behind on "+ph.LostHosts[0]+": ") || !strings.Contains(out.String(), l.Where) {
			t.Errorf("the output does not name the lost host's leftovers:\n%s", out)
		}
	})
	t.Run("cleanup fails", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("needs root: an immutable file (chattr +i) is what cleanup cannot remove")
		}
		c := startCluster(t, loopback(t, 3), nil, nil)
		data := t.TempDir()
		cmd, out := c.controller(t, "fio", "-d", data, "-w", quickJob(t, c.dir, 3))
		var stuck string
		for deadline := time.Now().Add(20 * time.Second); stuck == "" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			m, _ := filepath.Glob(filepath.Join(data, "storbench", "*", "*", "*", "data", "0"))
			if len(m) > 0 {
				stuck = m[0]
			}
		}
		if stuck == "" {
			t.Fatalf("no fio file appeared:\n%s", out)
		}
		if b, err := exec.Command("chattr", "+i", stuck).CombinedOutput(); err != nil {
			t.Skipf("chattr +i: %v %s", err, b)
		}
		defer exec.Command("chattr", "-i", stuck).Run()
		if code := exitCode(cmd.Wait()); code != 1 {
			t.Errorf("exit %d, want 1:\n%s", code, out)
		}
		s := summaryOf(t, folderOf(t, out.String()))
		if s.Status == "completed" {
			t.Errorf("run status %s", s.Status)
		}
		ph := s.Phases[0]
		if len(ph.Leftovers) != 1 {
			t.Fatalf("leftovers %+v:\n%s", ph.Leftovers, out)
		}
		l := ph.Leftovers[0]
		jobDir := filepath.Dir(filepath.Dir(stuck))
		host := filepath.Base(filepath.Dir(jobDir))
		// The job directory was set aside (renamed in its parent) to be
		// removed in the background: the leftover names where it is.
		aside := filepath.Join(filepath.Dir(jobDir), "."+filepath.Base(jobDir)+".removing-")
		if strings.HasPrefix(l.Where, aside) {
			defer exec.Command("chattr", "-i", filepath.Join(l.Where, strings.TrimPrefix(stuck, jobDir))).Run()
		}
		if l.Host != host || !strings.HasPrefix(l.Where, aside) || l.Count == nil || *l.Count != 3 {
			t.Errorf("leftover %+v, want 3 entries (job dir, data dir, file) in %s*, on %s", l, aside, host)
		}
		if _, err := os.Stat(filepath.Join(l.Where, strings.TrimPrefix(stuck, jobDir))); err != nil {
			t.Errorf("the place named does not hold the file left: %v", err)
		}
		if !strings.Contains(out.String(), "left behind on "+host+": 3 files and directories in "+l.Where) {
			t.Errorf("the output does not say what was left:\n%s", out)
		}
	})
}
