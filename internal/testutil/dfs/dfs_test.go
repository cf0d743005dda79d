package dfs

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// mountFS is a fake file system (no servers): its client i is a real
// tmpfs mounted at mp and a real process standing for the client's,
// or, for the clients in fail, an error. Each Mount waits (up to 3 s)
// for another client's to run at once, as a FUSE client's start waits
// on its servers.
type mountFS struct {
	fail map[int]bool

	mu      sync.Mutex
	running int
	peak    int
	procs   []*exec.Cmd
}

func (*mountFS) Name() string                { return "fake" }
func (*mountFS) Start(*Cluster)              {}
func (*mountFS) Stop(*Cluster)               {}
func (*mountFS) Leftovers(*Cluster) []string { return nil }
func (*mountFS) MountType() string           { return "tmpfs " }

// inFlight adds d to the clients mounting now, and returns the most
// there were at once.
func (f *mountFS) inFlight(d int) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.running += d
	f.peak = max(f.peak, f.running)
	return f.peak
}

func (f *mountFS) started(cmd *exec.Cmd) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.procs = append(f.procs, cmd)
}

func (f *mountFS) Mount(_ *Cluster, i int, mp string) (int, error) {
	f.inFlight(1)
	defer f.inFlight(-1)
	for deadline := time.Now().Add(3 * time.Second); f.inFlight(0) < 2 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if f.fail[i] {
		return 0, fmt.Errorf("no answer from the servers (fake %d)", i)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "fakeclient", mp).CombinedOutput(); err != nil {
		return 0, fmt.Errorf("mount tmpfs: %v: %s", err, out)
	}
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	f.started(cmd)
	return cmd.Process.Pid, nil
}

// The clients mount at once, at most mountsAtOnce at a time (one after
// another, three FUSE clients cost their starts' sum of a file system's
// budget); when some fail, the test's failure names every one of them,
// not only the first, and the teardown undoes the mounts made and ends
// the clients' processes.
func TestClientsMountTogetherAndEveryFailureIsNamed(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (tmpfs mounts)")
	}
	fs := &mountFS{fail: map[int]bool{1: true, 3: true}}
	c := &Cluster{t: t, FS: fs, Root: t.TempDir(), opts: Options{Agents: 5}}
	err := c.mountAll()
	if fs.peak < 2 || fs.peak > mountsAtOnce {
		t.Errorf("%d clients mounted at once at most, want 2 to %d", fs.peak, mountsAtOnce)
	}
	if err == nil || !strings.Contains(err.Error(), "client 1: no answer") || !strings.Contains(err.Error(), "client 3: no answer") {
		t.Errorf("the error %v does not name clients 1 and 3", err)
	}
	if len(c.Mounts) != 5 || len(c.clients) != 3 {
		t.Errorf("%d mount points and %d client processes, want 5 and 3", len(c.Mounts), len(c.clients))
	}
	for _, i := range []int{0, 2, 4} {
		if !IsMountPoint(c.Mounts[i]) {
			t.Errorf("client %d is not mounted at %s", i, c.Mounts[i])
		}
	}
	root := c.Root
	c.teardown()
	if b, _ := os.ReadFile("/proc/self/mountinfo"); strings.Contains(string(b), root) {
		t.Errorf("a mount under %s stays after the teardown", root)
	}
	for _, cmd := range fs.procs {
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
				t.Errorf("client process %d ended by itself (%v), not by the teardown", cmd.Process.Pid, err)
			}
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("client process %d still runs 30 s after the teardown", cmd.Process.Pid)
		}
	}
}

// Processes slow to end are stopped together: n of them that ignore
// SIGTERM cost the teardown one grace, then SIGKILL, not n graces (three
// mfsmount clients slow to end after their umount took 6 s of a MooseFS
// teardown one after another).
func TestStopPidsTogether(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("needs python3 (a process that ignores SIGTERM)")
	}
	var cmds []*exec.Cmd
	var pids []int
	for range 3 {
		cmd := exec.Command(py, "-c", "import signal,sys,time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nprint('ready', flush=True)\ntime.sleep(120)")
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		// SIGTERM before the handler would end it at once.
		if b := make([]byte, 5); func() bool { _, err := out.Read(b); return err != nil || string(b) != "ready" }() {
			t.Fatalf("process %d did not say it ignores SIGTERM", cmd.Process.Pid)
		}
		cmds, pids = append(cmds, cmd), append(pids, cmd.Process.Pid)
	}
	const grace = 2 * time.Second
	at := time.Now()
	StopPids(pids, grace)
	took := time.Since(at)
	for _, cmd := range cmds {
		_ = cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Errorf("process %d: %v, want ended by SIGKILL", cmd.Process.Pid, cmd.ProcessState)
		}
	}
	if took < grace || took >= 2*grace {
		t.Errorf("3 processes ignoring SIGTERM stopped in %v, want one grace (%v) and less than two", took, grace)
	}
}
