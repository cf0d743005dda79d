package safetext

import (
	"io"
	"sync"
	"unicode/utf8"
)

// Writer escapes every bad character written through it but LF and TAB,
// which are the layout of what is written (lines, tables): whatever a
// command prints, and whatever it printed from, no escape sequence, CR
// or text-direction control reaches the terminal. Text that must not
// break a line either (a name in a table row) is escaped with Escape
// before it is written. A character cut between two writes is held until
// the next one completes it; Flush writes what is held.
type Writer struct {
	mu   sync.Mutex
	w    io.Writer
	held []byte
}

// NewWriter returns w escaped, or w itself when it already is.
func NewWriter(w io.Writer) *Writer {
	if sw, ok := w.(*Writer); ok {
		return sw
	}
	return &Writer{w: w}
}

// Write writes p with its bad characters escaped. It returns len(p) when
// all of it was taken.
func (x *Writer) Write(p []byte) (int, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	b := p
	if len(x.held) > 0 {
		b = append(x.held, p...)
		x.held = nil
	}
	// A rune cut at the end waits for the rest of it.
	if cut := cutRune(b); cut < len(b) {
		x.held = append([]byte(nil), b[cut:]...)
		b = b[:cut]
	}
	if clean(b) {
		if _, err := x.w.Write(b); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	if _, err := io.WriteString(x.w, escape(string(b), true)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// WriteControl writes s as it is: the writer's own terminal controls (a
// live line's carriage return and erase), never text from outside.
func (x *Writer) WriteControl(s string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.flush(); err != nil {
		return err
	}
	_, err := io.WriteString(x.w, s)
	return err
}

// Flush writes a character held incomplete, escaped (it never completed).
func (x *Writer) Flush() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.flush()
}

func (x *Writer) flush() error {
	if len(x.held) == 0 {
		return nil
	}
	s := escape(string(x.held), true)
	x.held = nil
	_, err := io.WriteString(x.w, s)
	return err
}

// cutRune returns where an incomplete UTF-8 sequence at the end of b
// starts, or len(b).
func cutRune(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if b[i] >= utf8.RuneSelf && !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}

// clean reports whether b is printable as it is: UTF-8 without bad
// characters other than LF and TAB.
func clean(b []byte) bool {
	for i := 0; i < len(b); {
		if c := b[i]; c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 || Bad(r) {
			return false
		}
		i += n
	}
	return true
}
