package cluster

import (
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Stopping a launcher program that holds its agents' stdin: one that ends
// when its stdin closes leaves nothing to report; one that ignores that
// and SIGTERM is killed, and Stop says so, so the run can tell the user
// what may be left.
func TestStopStreamReportsWhatWasLeft(t *testing.T) {
	start := func(args ...string) (io.Closer, <-chan struct{}, func(syscall.Signal)) {
		cmd := exec.Command(args[0], args[1:]...)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		return stdin, done, func(sig syscall.Signal) { _ = cmd.Process.Signal(sig) }
	}
	in, done, signal := start("cat")
	if left := stopStream(in, done, "cat", 10*time.Second, signal); len(left) != 0 {
		t.Errorf("a program that ended with its stdin reported as left: %v", left)
	}
	// SIG_IGN survives exec: sleep ignores SIGTERM too.
	in, done, signal = start("sh", "-c", "trap '' TERM; exec sleep 60")
	left := stopStream(in, done, "mpiexec", 300*time.Millisecond, signal)
	if len(left) != 1 || !strings.HasPrefix(left[0], "mpiexec: ") || !strings.Contains(left[0], "killed") || !strings.Contains(left[0], "may not have removed") {
		t.Errorf("left %q, want mpiexec named as killed", left)
	}
}
