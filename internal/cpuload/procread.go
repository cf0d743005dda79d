package cpuload

import (
	"bytes"
	"io"
	"os"
)

// procFile is a /proc or /sys file kept open and read again from its
// start at every sample, into a buffer of its own: a sample opens
// nothing and allocates nothing once the buffer has grown to the file.
type procFile struct {
	f   *os.File
	buf []byte
}

func openProc(path string) *procFile {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	return &procFile{f: f, buf: make([]byte, 16<<10)}
}

// read returns the file's content now (valid until the next read), nil
// when it cannot be read.
func (p *procFile) read() []byte {
	if p == nil {
		return nil
	}
	for {
		n, err := p.f.ReadAt(p.buf, 0)
		if err != nil && err != io.EOF {
			return nil
		}
		if n < len(p.buf) {
			return p.buf[:n]
		}
		// Full: the file may be longer. Grow once and read it all again
		// (a seq_file is read whole for a consistent view).
		p.buf = make([]byte, 2*len(p.buf))
	}
}

func (p *procFile) close() {
	if p != nil {
		p.f.Close()
	}
}

// nextLine splits b at its first newline.
func nextLine(b []byte) (line, rest []byte) {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i], b[i+1:]
	}
	return b, nil
}

// field returns b's first space-separated field and what follows it.
func field(b []byte) (f, rest []byte) {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	j := i
	for j < len(b) && b[j] != ' ' && b[j] != '\t' {
		j++
	}
	return b[i:j], b[j:]
}

// atou parses an unsigned decimal; ok is false on anything else.
func atou(b []byte) (v uint64, ok bool) {
	if len(b) == 0 {
		return 0, false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}

// uints parses the first len(out) fields of b into out and returns how
// many it parsed before a field that was not a number or b ended.
func uints(b []byte, out []uint64) int {
	for i := range out {
		var f []byte
		f, b = field(b)
		v, ok := atou(f)
		if !ok {
			return i
		}
		out[i] = v
	}
	return len(out)
}
