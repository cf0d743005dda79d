package ceph

import (
	"os/exec"
	"testing"
	"time"
)

// A cluster on a tmpfs of its own (CephFS's) has its daemons killed at
// once: what they would write on the way out goes with the tmpfs, and
// each given its grace in turn (an MDS, an OSD, a monitor) took 6.5 s of
// the CephFS test's budget. The daemons here are processes that ignore
// SIGTERM, as a busy OSD does for seconds: the stop waits for no grace.
func TestTmpfsClusterDaemonsKilledAtOnce(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("needs python3 (a process that ignores SIGTERM)")
	}
	c := &Cluster{tmpfs: true}
	for range 3 {
		cmd := exec.Command(py, "-c", "import signal,time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nprint('ready', flush=True)\ntime.sleep(120)")
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		d := &daemon{name: "fake", cmd: cmd, done: make(chan struct{})}
		// Read its word before Wait, which closes the pipe.
		b := make([]byte, 5)
		if _, err := out.Read(b); err != nil || string(b) != "ready" {
			_ = cmd.Process.Kill()
			t.Fatalf("process %d did not say it ignores SIGTERM", cmd.Process.Pid)
		}
		go func() { _ = cmd.Wait(); close(d.done) }()
		t.Cleanup(func() { _ = cmd.Process.Kill(); <-d.done })
		c.daemons = append(c.daemons, d)
	}
	at := time.Now()
	c.stopDaemons()
	if took := time.Since(at); took >= stopGrace/2 {
		t.Errorf("3 daemons of a tmpfs cluster stopped in %v, want at once (a grace is %v)", took, stopGrace)
	}
	for _, d := range c.daemons {
		select {
		case <-d.done:
		default:
			t.Errorf("daemon %d still runs after the stop", d.cmd.Process.Pid)
		}
	}
}
