package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// errorsOf is a testing.TB that keeps what Errorf is told.
type errorsOf struct {
	testing.TB
	errs []string
}

func (e *errorsOf) Helper() {}

func (e *errorsOf) Errorf(format string, args ...any) {
	e.errs = append(e.errs, fmt.Sprintf(format, args...))
}

// NoneMarkedWithin's limit, stretched by this machine's lateness, still
// fails a process left for good, and kills it; one that ends within the
// limit passes.
func TestNoneMarkedWithinCatchesWhatIsLeft(t *testing.T) {
	t.Parallel()
	mark := ProcMark()
	start := func(script string) *exec.Cmd {
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Env = append(os.Environ(), mark)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}

	ends := start("exec sleep 0.2")
	WaitMarked(t, mark, 1, time.Minute)
	got := &errorsOf{TB: t}
	go func() { _ = ends.Wait() }()
	NoneMarkedWithin(got, mark, time.Now(), 2*time.Second)
	if len(got.errs) > 0 {
		t.Errorf("a process that ended 0.2 s after the start failed a 2-s limit: %v", got.errs)
	}

	stays := start("exec sleep 314")
	defer func() { _ = stays.Process.Kill() }() // after a failure to kill it
	ended := make(chan error, 1)
	go func() { ended <- stays.Wait() }()
	WaitMarked(t, mark, 1, time.Minute)
	got = &errorsOf{TB: t}
	NoneMarkedWithin(got, mark, time.Now(), 100*time.Millisecond)
	if len(got.errs) != 1 || !strings.Contains(got.errs[0], "sleep 314") {
		t.Errorf("a process left for good: %q, want one error naming it", got.errs)
	}
	err := Recv(t, ended, Bound, "the end of the process left")
	if err == nil || err.Error() != "signal: killed" {
		t.Errorf("the process left ended so: %v, want killed by SIGKILL", err)
	}
}
