package dfs

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Mark is one run of a control's action, timed by this test process: the
// harness's own account of when a server stopped or came back, to hold
// what storbench reports against.
type Mark struct {
	// Begin and End are when the action began and returned.
	Begin, End time.Time
	// Err is the action's error.
	Err error
}

// control is one action a suite's event command has this process do,
// through two FIFOs under Root: the command writes a line to req, the
// action runs, and its answer ("ok", or the error) is written to ack,
// which the command reads. This process holds both open read-write, so
// neither side's open blocks, and an answer written before its command
// reads it waits in the FIFO.
type control struct {
	name     string
	req, ack *os.File
	fn       func() error
	mu       sync.Mutex
	marks    []Mark
	done     chan struct{}
}

// Control returns a shell command that has this test process run fn and
// waits for it: an event of a suite runs it on the controller (`command:
// CMD`), and it exits 0 when fn returned nil, 1 with fn's error on its
// standard error otherwise. Each run of fn is recorded (Marks). The
// cluster's teardown ends it.
func (c *Cluster) Control(name string, fn func() error) string {
	c.t.Helper()
	dir := filepath.Join(c.Root, "control")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		c.t.Fatal(err)
	}
	ct := &control{name: name, fn: fn, done: make(chan struct{})}
	var err error
	ct.req, err = fifo(filepath.Join(dir, fmt.Sprintf("%d.req", len(c.controls))))
	if err == nil {
		ct.ack, err = fifo(filepath.Join(dir, fmt.Sprintf("%d.ack", len(c.controls))))
	}
	if err != nil {
		c.t.Fatalf("control %s: %v", name, err)
	}
	c.controls = append(c.controls, ct)
	go ct.serve()
	return fmt.Sprintf(`echo go > %q && read -r r < %q && [ "$r" = ok ] || { echo "%s: $r" >&2; exit 1; }`, ct.req.Name(), ct.ack.Name(), name)
}

func fifo(path string) (*os.File, error) {
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		return nil, err
	}
	return os.OpenFile(path, os.O_RDWR, 0)
}

// serve runs the action once per request line until req is closed.
func (ct *control) serve() {
	defer close(ct.done)
	sc := bufio.NewScanner(ct.req)
	for sc.Scan() {
		m := Mark{Begin: time.Now()}
		m.Err = ct.fn()
		m.End = time.Now()
		ct.mu.Lock()
		ct.marks = append(ct.marks, m)
		ct.mu.Unlock()
		answer := "ok"
		if m.Err != nil {
			answer = strings.ReplaceAll(m.Err.Error(), "\n", " ")
		}
		if _, err := fmt.Fprintln(ct.ack, answer); err != nil {
			return
		}
	}
}

// Marks are the runs of the control named name so far, in order.
func (c *Cluster) Marks(name string) []Mark {
	for _, ct := range c.controls {
		if ct.name == name {
			ct.mu.Lock()
			defer ct.mu.Unlock()
			return append([]Mark(nil), ct.marks...)
		}
	}
	return nil
}

// stopControls closes the FIFOs (a read in serve returns) and waits for
// an action under way, at most a minute.
func (c *Cluster) stopControls() {
	for _, ct := range c.controls {
		ct.req.Close()
		select {
		case <-ct.done:
		case <-time.After(time.Minute):
			c.t.Errorf("control %s: its action still runs after a minute", ct.name)
		}
		ct.ack.Close()
	}
}
