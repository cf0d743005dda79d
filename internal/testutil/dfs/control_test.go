package dfs

import (
	"errors"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A control's command has the test run the action and waits for it: it
// exits 0 once the action returned, 1 with the action's error on its
// standard error when it failed; each run is timed, and the command
// returns no earlier than its action.
func TestControlRunsTheActionAndWaits(t *testing.T) {
	c := &Cluster{t: t, Root: t.TempDir()}
	defer c.stopControls()
	var fail atomic.Bool // written here, read by the control's goroutine
	ok := c.Control("act", func() error {
		time.Sleep(300 * time.Millisecond)
		if fail.Load() {
			return errors.New("the server did not come back")
		}
		return nil
	})
	begin := time.Now()
	if out, err := exec.Command("sh", "-c", ok).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	took := time.Since(begin)
	fail.Store(true)
	out, err := exec.Command("sh", "-c", ok).CombinedOutput()
	if ee, isExit := err.(*exec.ExitError); !isExit || ee.ExitCode() != 1 || !strings.Contains(string(out), "act: the server did not come back") {
		t.Errorf("a failed action: %v, %q; want exit 1 and its error", err, out)
	}
	m := c.Marks("act")
	if len(m) != 2 || m[0].Err != nil || m[1].Err == nil {
		t.Fatalf("marks %+v, want two runs, the second failed", m)
	}
	if d := m[0].End.Sub(m[0].Begin); d < 300*time.Millisecond || took < d {
		t.Errorf("the action took %v, the command %v: want the command to wait for the action", d, took)
	}
}
