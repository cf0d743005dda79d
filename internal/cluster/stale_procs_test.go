package cluster_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/testutil"
)

// runsIn lists the run directories under data/storbench.
func runsIn(data string) []string {
	var out []string
	ents, _ := os.ReadDir(filepath.Join(data, "storbench"))
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// storbench runs the binary to its end and returns its exit code and
// output.
func storbench(t *testing.T, bin string, args ...string) (int, string) {
	t.Helper()
	out, err := exec.Command(bin, args...).CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, string(out)
}

// Issue 32, item 5: a run killed with SIGKILL (its controller, which ran
// the phase itself, or its agents) leaves its directory and markers in
// DIR/storbench for good. A later run names what it left, and removes it
// with --remove-stale; DIR is then as it was, foreign file included.
func TestKilledRunsLeftoversNamedAndRemoved(t *testing.T) {
	bin := testutil.StorbenchBin(t)
	results := t.TempDir()
	long := []string{"md", "-n", "3000000", "-t", "1", "--only", "create"}
	short := []string{"md", "-n", "20", "-t", "1", "--results", results}

	t.Run("controller", func(t *testing.T) {
		data := t.TempDir()
		foreign := filepath.Join(data, "keep")
		if err := os.WriteFile(foreign, []byte("foreign"), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, append(long, "-d", data, "--results", results)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }) // before data's removal
		waitFor(t, "the run's directory", func() bool { return len(runsIn(data)) == 1 })
		killed := runsIn(data)[0]
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		laterRuns(t, bin, data, killed, short)
		if b, err := os.ReadFile(foreign); err != nil || string(b) != "foreign" {
			t.Errorf("foreign file: %q, %v", b, err)
		}
	})

	t.Run("agents", func(t *testing.T) {
		// Two agents of one run, killed with their controller: the run's
		// shared area stays pinned (DIR/storbench/<run>/shared/.storbench-run).
		c := startCluster(t, loopback(t, 2), nil, nil)
		data := t.TempDir()
		cmd, out := c.controller(t, append(long, "-d", data)...)
		t.Cleanup(func() { // before data's removal, should the test fail first
			_ = cmd.Process.Kill()
			for _, a := range c.agents {
				_ = a.cmd.Process.Kill()
			}
		})
		for _, a := range c.agents {
			if _, ok := a.waitLog("phase md (md)", 30*time.Second); !ok {
				t.Fatalf("the phase did not start:\n%s", out)
			}
		}
		killed := runsIn(data)[0]
		// Each agent's lease is made before its workspace: there by now,
		// or soon. (Not waited for long: md makes files all the while.)
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			leases, _ := filepath.Glob(filepath.Join(data, "storbench", ".storbench-live-"+killed+".*"))
			if len(leases) == 2 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("leases of the run's agents: %v, want one of each", leases)
			}
		}
		_ = cmd.Process.Signal(syscall.SIGKILL)
		for _, a := range c.agents {
			_ = a.cmd.Process.Signal(syscall.SIGKILL)
		}
		_ = cmd.Wait()
		for _, a := range c.agents {
			<-a.done
		}
		if _, err := os.Lstat(filepath.Join(data, "storbench", killed, "shared", ".storbench-run")); err != nil {
			t.Fatalf("the killed run's pin is not there: %v\n%s", err, out)
		}
		laterRuns(t, bin, data, killed, short)
	})
}

// laterRuns runs a short run on data, which names what the killed run
// left and leaves it, then one with --remove-stale, which removes it:
// after it, data holds nothing of storbench's.
func laterRuns(t *testing.T, bin, data, killed string, short []string) {
	t.Helper()
	if _, err := os.Lstat(filepath.Join(data, "storbench", ".storbench-created-by-"+killed)); err != nil {
		t.Errorf("the killed run's marker is not there: %v", err)
	}
	code, out := storbench(t, bin, append(short, "-d", data)...)
	if code != 0 {
		t.Fatalf("a later run: exit %d\n%s", code, out)
	}
	if !strings.Contains(out, "run "+killed+", killed (") || !strings.Contains(out, "--remove-stale removes it") {
		t.Errorf("a later run does not name what the killed run %s left:\n%s", killed, out)
	}
	if _, err := os.Lstat(filepath.Join(data, "storbench", killed)); err != nil {
		t.Errorf("a run without --remove-stale removed the killed run's directory: %v", err)
	}
	code, out = storbench(t, bin, append(short, "-d", data, "--remove-stale")...)
	if code != 0 {
		t.Fatalf("a later run with --remove-stale: exit %d\n%s", code, out)
	}
	if !strings.Contains(out, "removed what a killed run left: run "+killed+", killed (") {
		t.Errorf("--remove-stale does not say it removed what the killed run %s left:\n%s", killed, out)
	}
	if _, err := os.Lstat(filepath.Join(data, "storbench")); err == nil {
		t.Errorf("DIR/storbench is left after --remove-stale: %v", runsIn(data))
	}
}

// A run going on is never removed: --remove-stale from another controller
// at the same time names nothing and leaves the live run's directory and
// lease, and the live run ends as usual, removing its own.
func TestRemoveStaleLeavesALiveRun(t *testing.T) {
	bin := testutil.StorbenchBin(t)
	results, data := t.TempDir(), t.TempDir()
	cmd := exec.Command(bin, "md", "-d", data, "-n", "3000000", "-t", "1", "--only", "create", "--results", results)
	var out testutil.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() }) // before data's removal
	waitFor(t, "the run's directory", func() bool { return len(runsIn(data)) == 1 })
	live := runsIn(data)[0]
	code, other := storbench(t, bin, "md", "-d", data, "-n", "20", "-t", "1", "--results", results, "--remove-stale")
	if code != 0 || strings.Contains(other, live) {
		t.Errorf("a run with --remove-stale beside the live run %s: exit %d\n%s", live, code, other)
	}
	leases, _ := filepath.Glob(filepath.Join(data, "storbench", ".storbench-live-"+live+".*"))
	if _, err := os.Lstat(filepath.Join(data, "storbench", live)); err != nil || len(leases) != 1 {
		t.Errorf("the live run's directory (%v) or lease (%v) is gone", err, leases)
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Errorf("the live run, interrupted: %v\n%s", err, out.String())
	}
	if ents, _ := os.ReadDir(data); len(ents) != 0 {
		t.Errorf("DIR holds %v after the live run ended", ents)
	}
}
