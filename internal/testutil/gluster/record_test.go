package gluster_test

// Recording the per-second data the event tests of internal/analyze and
// internal/report read (issue 35): a write phase on four clients during
// which brick 1 of the replica-2 volume is killed, started again, hung
// and restarted, and the same phase healthy. Run by hand; the folders go
// to $STORBENCH_RECORD (testdata/results of the repository), without
// fio's raw JSON, which no reader of them needs.

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/storbench/storbench/internal/testutil/dfs"
	"github.com/storbench/storbench/internal/testutil/gluster"
)

// recordEnv names the folder the recordings are copied to.
const recordEnv = "STORBENCH_RECORD"

// TestGlusterRecordBrickEvents records, on a volume whose clients give a
// hung brick up only after 30 s (network.ping-timeout), a 36-s write phase
// with four events on brick 1: killed at 3 s (the clients write on to
// brick 0: no dip), started again at 10 s (the command returns once the
// clients are back on it), hung at 20 s (every write waits: the dip) and
// restarted at 28 s (the writes come back); and the phase healthy.
func TestGlusterRecordBrickEvents(t *testing.T) {
	dest := os.Getenv(recordEnv)
	if dest == "" {
		t.Skipf("records testdata by hand: set %s to the folder that receives it", recordEnv)
	}
	gluster.Full(t)
	c := gluster.Start(t, gluster.Options{})
	dfs.OwnClients(t, c.Cluster)
	t.Cleanup(func() { restoreBrick(t, c) })
	c.Gluster("volume", "set", c.Volume, "network.ping-timeout", "30")
	brick := c.Server + ":" + c.Brick(1)
	status := fmt.Sprintf(`gluster --mode=script volume status %s %s --xml`, c.Volume, brick)
	pid := status + ` | sed -n 's:.*<pid>\(.*\)</pid>.*:\1:p'`
	clients := func(b int) string {
		return fmt.Sprintf(`gluster --mode=script volume status %s %s:%s clients --xml | sed -n 's:.*<clientCount>\(.*\)</clientCount>.*:\1:p'`, c.Volume, c.Server, c.Brick(b))
	}
	// Started again, the brick is back when its clients are: as many as
	// brick 0 has.
	start := fmt.Sprintf(`gluster --mode=script volume start %s force; want=$(%s); for i in $(seq 150); do [ "$(%s)" -ge "$want" ] 2>/dev/null && break; sleep 0.2; done`,
		c.Volume, clients(0), clients(1))
	restart := fmt.Sprintf(`p=$(%s); kill -KILL $p; for i in $(seq 100); do [ -r /proc/$p/cmdline ] || break; sleep 0.1; done; gluster --mode=script volume start %s force`, pid, c.Volume)
	events := fmt.Sprintf(`      - {name: kill brick, at: 3s, timeout: 20s, command: %q}
      - {name: start brick, at: 10s, timeout: 40s, command: %q}
      - {name: hang brick, at: 20s, timeout: 20s, command: %q}
      - {name: restart brick, at: 28s, timeout: 40s, command: %q}
`, pid+" | xargs -r kill -KILL", start, pid+" | xargs -r kill -STOP", restart)
	_, healthy := brickRun(t, c, brickSuite(t, c, "gluster-brick-healthy", "36s", ""))
	s, folder := brickRun(t, c, brickSuite(t, c, "gluster-brick-events", "36s", events))
	for _, e := range s.Phases[0].Events {
		t.Logf("event %s: %v s to %v s, exit %v, error %q, output %q", e.Name, deref(e.StartS), deref(e.EndS), e.Exit, e.Error, e.Output)
	}
	for name, from := range map[string]string{"gluster-brick-healthy": healthy, "gluster-brick-events": folder} {
		if err := copyResults(from, filepath.Join(dest, name)); err != nil {
			t.Fatal(err)
		}
	}
}

// copyResults copies a results folder to dest, leaving out fio's raw
// JSON.
func copyResults(from, dest string) error {
	if err := os.RemoveAll(dest); err != nil {
		return err
	}
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		to := filepath.Join(dest, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Name() == "fio.json":
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
}
