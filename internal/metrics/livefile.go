package metrics

import (
	"bytes"
	"errors"
	"io"
	"os"
	"syscall"
	"time"
)

// pipeWait is how long one write to a FIFO or a device waits for its
// reader: the --live writer never holds a line longer, so a reader that
// stalls, or never came, costs lines, not time.
const pipeWait = 100 * time.Millisecond

// PipeWriter writes the --live stream to a FIFO or a character device
// (a terminal) without blocking: it opens without waiting for a reader
// (a FIFO that has none yet is opened again at the next write, so a
// reader that comes later gets the lines from then on), each write waits
// at most pipeWait for the reader, and lines the reader did not take are
// dropped whole and counted (Dropped). A line the reader took in part is
// finished before any other, so no line reaches it cut.
type PipeWriter struct {
	path string
	f    *os.File
	// rest is the end of a line the reader took only in part.
	rest    []byte
	dropped int
	err     error
	// stalled says the last write timed out: until one goes through, a
	// write only takes what fits at once, so a reader that went quiet
	// costs one pipeWait, not one per second of lines.
	stalled bool
}

// OpenPipe opens path, a FIFO or a character device, for PipeWriter.
func OpenPipe(path string) (*PipeWriter, error) {
	w := &PipeWriter{path: path}
	if err := w.open(); err != nil {
		return nil, err
	}
	return w, nil
}

// open opens the file without blocking; a FIFO without a reader (ENXIO)
// leaves it closed, for the next write to try again.
func (w *PipeWriter) open() error {
	f, err := os.OpenFile(w.path, os.O_WRONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if errors.Is(err, syscall.ENXIO) {
		return nil
	}
	if err != nil {
		return err
	}
	w.f = f
	return nil
}

// Write takes b, whole lines, and never returns an error for what the
// reader would not take: those lines are dropped and counted.
func (w *PipeWriter) Write(b []byte) (int, error) {
	if w.f == nil {
		if err := w.open(); err != nil {
			return 0, err
		}
		if w.f == nil {
			w.dropped += bytes.Count(b, []byte{'\n'})
			return len(b), nil
		}
	}
	if len(w.rest) > 0 {
		n, err := w.write(w.rest)
		w.rest = w.rest[n:]
		if err != nil || len(w.rest) > 0 {
			w.dropped += bytes.Count(b, []byte{'\n'})
			return len(b), w.broken(err)
		}
	}
	n, err := w.write(b)
	if n < len(b) {
		// The line the reader took in part is finished first, next time;
		// the lines after it are dropped.
		if n > 0 && b[n-1] != '\n' {
			end := n + bytes.IndexByte(b[n:], '\n') + 1
			w.rest = append(w.rest[:0], b[n:end]...)
			n = end
		}
		w.dropped += bytes.Count(b[n:], []byte{'\n'})
	}
	return len(b), w.broken(err)
}

// write writes b, waiting at most pipeWait for the reader (and hardly
// at all while it is stalled).
func (w *PipeWriter) write(b []byte) (int, error) {
	wait := pipeWait
	if w.stalled {
		wait = time.Millisecond
	}
	// A file the runtime cannot poll (a device) does not take a deadline;
	// its writes do not wait for a reader either.
	_ = w.f.SetWriteDeadline(time.Now().Add(wait))
	n, err := w.f.Write(b)
	w.stalled = errors.Is(err, os.ErrDeadlineExceeded)
	return n, err
}

// broken deals with a write's error: a deadline is a slow reader (no
// error); a reader that went away (EPIPE) closes the file, for a later
// reader to be opened for; anything else is kept and returned.
func (w *PipeWriter) broken(err error) error {
	switch {
	case err == nil, errors.Is(err, os.ErrDeadlineExceeded):
		return nil
	case errors.Is(err, syscall.EPIPE):
		_ = w.f.Close()
		w.f, w.rest = nil, nil
		return nil
	}
	w.err = err
	return err
}

// Dropped is how many lines the reader did not take.
func (w *PipeWriter) Dropped() int { return w.dropped }

// Close closes the file.
func (w *PipeWriter) Close() error {
	if w.f == nil {
		return nil
	}
	return w.f.Close()
}

var _ io.WriteCloser = (*PipeWriter)(nil)
