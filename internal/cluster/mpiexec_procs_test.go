package cluster_test

// --launcher mpiexec with MPICH's real mpiexec (Hydra) on loopback: every
// rank runs on this machine, each a real agent process.

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/testutil"
)

// needMPICH skips where MPICH's mpiexec is missing (make tools installs
// it: the distribution's mpich package).
func needMPICH(t *testing.T) {
	t.Helper()
	for _, n := range []string{"mpiexec.mpich", "mpiexec"} {
		if _, err := exec.LookPath(n); err == nil {
			return
		}
	}
	t.Skip("the mpiexec launcher test needs MPICH's mpiexec (mpiexec.mpich): install the distribution's mpich package (make tools does)")
}

// Issue 22, item 3: `storbench md --launcher mpiexec --hostfile F` runs a
// real md phase with one agent per slot, started as MPI ranks by MPICH's
// mpiexec, in the order the hosts are given (127.0.0.1 first, then
// localhost's two slots: not sorted), and no agent is left after the run.
// Ctrl-C stops every rank: each ends its phase and removes what it
// created, the run ends as interrupted (130) and no agent is left; a
// controller that is killed takes its agents and mpiexec with it (as with
// --ssh, what the killed run created stays: no controller is left to
// clean its shared area).
func TestMPIExecLauncher(t *testing.T) {
	needMPICH(t)
	bin := testutil.StorbenchBin(t)
	dir := t.TempDir()
	hostfile := filepath.Join(dir, "hosts")
	if err := os.WriteFile(hostfile, []byte("# MPICH's syntax: host:slots\n127.0.0.1:1\nlocalhost:2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	data, res := t.TempDir(), filepath.Join(dir, "results")
	md := func(extra ...string) *exec.Cmd {
		return exec.Command(bin, append([]string{"md", "-d", data, "-F", "--launcher", "mpiexec", "--hostfile", hostfile, "--results", res}, extra...)...)
	}
	code, out := runExit(t, md("-n", "100"))
	if code != 0 {
		t.Fatalf("storbench md --launcher mpiexec: exit %d\n%s", code, out)
	}
	ph := summaryOf(t, folderOf(t, out)).Phases[0]
	if strings.Join(ph.Hosts, ",") != "127.0.0.1,localhost-0,localhost-1" {
		t.Errorf("hosts %v, want the 3 ranks in the order the hostfile gives them\n%s", ph.Hosts, out)
	}
	if ph.Engine != "md" || len(ph.Ops) == 0 {
		t.Errorf("the phase measured nothing: %+v", ph)
	}
	if pids := agentPIDs(bin); len(pids) != 0 {
		t.Errorf("agents still run after the run: %v", pids)
	}
	if pids := mpiexecOf(bin); len(pids) != 0 {
		t.Errorf("mpiexec still runs after the run: %v", pids)
	}

	t.Run("Ctrl-C", func(t *testing.T) {
		cmd := md("-n", "1000000")
		var outb testutil.Buffer
		cmd.Stdout, cmd.Stderr = &outb, &outb
		// A terminal's Ctrl-C goes to the foreground process group: the
		// controller's own here.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = cmd.Process.Kill() }()
		waitFor(t, "file-create in the live line", func() bool { return strings.Contains(outb.String(), "file-create ") })
		if n := len(agentPIDs(bin)); n != 3 {
			t.Fatalf("%d agents run, want 3\n%s", n, outb.String())
		}
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		interrupted := time.Now()
		waitFor(t, "every agent to exit", func() bool { return len(agentPIDs(bin)) == 0 })
		t.Logf("Ctrl-C -> every agent exited: %.2f s", time.Since(interrupted).Seconds())
		err := cmd.Wait()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 || !strings.Contains(outb.String(), "interrupted") {
			t.Fatalf("after Ctrl-C: %v, want exit 130:\n%s", err, outb.String())
		}
		// Nothing left, DIR/storbench included: the run made it. (A
		// DirEntry prints its type first: "[- .storbench-created-by-R]"
		// was one file, the marker, not an entry named "-".)
		if _, err := os.Lstat(filepath.Join(data, "storbench")); err == nil {
			ents, _ := os.ReadDir(filepath.Join(data, "storbench"))
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			t.Errorf("%s/storbench is left, holding %q", data, names)
		}
	})

	t.Run("controller killed", func(t *testing.T) {
		cmd := md("-n", "1000000")
		var outb testutil.Buffer
		cmd.Stdout, cmd.Stderr = &outb, &outb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "file-create in the live line", func() bool { return strings.Contains(outb.String(), "file-create ") })
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		killed := time.Now()
		waitFor(t, "every agent to exit", func() bool { return len(agentPIDs(bin)) == 0 })
		t.Logf("controller killed -> every agent exited: %.2f s", time.Since(killed).Seconds())
		waitFor(t, "mpiexec to exit", func() bool { return len(mpiexecOf(bin)) == 0 })
	})
	if pids := mpiexecOf(bin); len(pids) != 0 {
		t.Errorf("mpiexec still runs: %v", pids)
	}
}

// mpiexecOf lists the running mpiexec processes that start agents of
// binary bin.
func mpiexecOf(bin string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		args := strings.Split(string(b), "\x00")
		if strings.Contains(filepath.Base(args[0]), "mpiexec") && slices.Contains(args, bin) {
			out = append(out, pid)
		}
	}
	return out
}
