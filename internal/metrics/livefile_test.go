package metrics

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A FIFO as the --live stream, without a reader, with one that stalls,
// one that goes away and one that comes late: no write waits longer than
// about pipeWait, what the reader did not take is counted in lines, and
// every line a reader gets is whole (before, opening a FIFO without a
// reader blocked the run for good).
func TestPipeWriterNeverBlocks(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "live")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// Lines of 1000 bytes, a second's worth of three per write: a full
	// pipe takes one in part.
	line := strings.Repeat("x", 999) + "\n"
	batch := []byte(strings.Repeat(line, 3))
	var pw *PipeWriter
	timed := func(what string) {
		t.Helper()
		t0 := time.Now()
		if n, err := pw.Write(batch); n != len(batch) || err != nil {
			t.Fatalf("%s: wrote %d, %v", what, n, err)
		}
		if d := time.Since(t0); d > 10*pipeWait {
			t.Errorf("%s: a write took %v", what, d)
		}
	}
	// No reader: opening does not block, the lines are dropped.
	t0 := time.Now()
	pw, err := OpenPipe(fifo)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(t0); d > time.Second {
		t.Fatalf("opening a FIFO without a reader took %v", d)
	}
	timed("no reader")
	if pw.Dropped() != 3 {
		t.Errorf("no reader: %d lines dropped, want 3", pw.Dropped())
	}
	// A reader that never reads: the pipe fills, then lines are dropped.
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200 && pw.Dropped() < 3+30; i++ {
		timed("stalled reader")
	}
	if pw.Dropped() < 3+30 {
		t.Fatalf("a reader that never reads: only %d lines dropped", pw.Dropped())
	}
	// Once it reads, it gets whole lines only, and then new ones.
	whole := func() int {
		t.Helper()
		// What the pipe holds, read until it has been empty a while.
		_ = r.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		sc := bufio.NewScanner(r)
		n := 0
		for sc.Scan() {
			if sc.Text() != line[:999] {
				t.Fatalf("a line came cut: %d bytes", len(sc.Text()))
			}
			n++
		}
		return n
	}
	before := whole()
	timed("reader back")
	timed("reader back")
	if got := whole(); got < 3 || before == 0 {
		t.Errorf("the reader got %d lines, then %d after it read again", before, got)
	}
	// The reader goes away: lines are dropped; a new one gets the next.
	r.Close()
	timed("reader gone")
	r, err = os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	timed("new reader")
	if got := whole(); got != 3 {
		t.Errorf("a new reader got %d lines, want 3", got)
	}
	if err := pw.Close(); err != nil {
		t.Error(err)
	}
}
