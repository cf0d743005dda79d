package s3

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
)

// dataBlock is the random content every upload of a phase is cut from. One
// read-only block serves all workers, so memory does not grow with
// concurrency or object size: an object's byte j is block[(off+j) % len]
// where off depends on the key, so objects differ and can be verified.
type dataBlock struct {
	b []byte
}

// maxBlock bounds the block: objects larger than it repeat it.
const maxBlock = 8 << 20

func newDataBlock(objSize int64, seed uint64) *dataBlock {
	n := min(max(objSize, 64<<10), maxBlock)
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	for i := 0; i+8 <= len(b); i += 8 {
		v := r.Uint64()
		for k := 0; k < 8; k++ {
			b[i+k] = byte(v >> (8 * k))
		}
	}
	return &dataBlock{b: b}
}

// offset is where key's content starts in the block.
func (d *dataBlock) offset(key string) int { return offsetOf(d, key) }

// offsetOf is offset for a key given as a string or as bytes.
func offsetOf[K string | []byte](d *dataBlock, key K) int {
	// FNV-1a, inline: hash/fnv through its interface allocates per call.
	h := uint64(14695981039346656037)
	for i := 0; i < len(key); i++ {
		h ^= uint64(key[i])
		h *= 1099511628211
	}
	return int(h % uint64(len(d.b)))
}

// content returns the expected bytes of key (for verification).
func (d *dataBlock) content(key string, size int64) []byte {
	out := make([]byte, size)
	r := &dataReader{}
	r.reset(d, d.offset(key), size)
	_, _ = io.ReadFull(r, out)
	return out
}

// dataReader streams an object's content from the block without copying the
// block. A worker keeps one and resets it per request.
type dataReader struct {
	d    *dataBlock
	off  int   // start offset in the block
	size int64 // object size
	pos  int64 // bytes read so far
}

func (r *dataReader) reset(d *dataBlock, off int, size int64) {
	r.d, r.off, r.size, r.pos = d, off, size, 0
}

// Read copies the next bytes of the object into p.
func (r *dataReader) Read(p []byte) (int, error) {
	if r.pos >= r.size {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && r.pos < r.size {
		i := (r.off + int(r.pos%int64(len(r.d.b)))) % len(r.d.b)
		chunk := r.d.b[i:]
		if rem := r.size - r.pos; int64(len(chunk)) > rem {
			chunk = chunk[:rem]
		}
		c := copy(p[n:], chunk)
		n += c
		r.pos += int64(c)
	}
	return n, nil
}

// WriteTo writes the rest of the object to w straight from the block, which
// saves net/http a copy through its own buffer.
func (r *dataReader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for r.pos < r.size {
		i := (r.off + int(r.pos%int64(len(r.d.b)))) % len(r.d.b)
		chunk := r.d.b[i:]
		if rem := r.size - r.pos; int64(len(chunk)) > rem {
			chunk = chunk[:rem]
		}
		n, err := w.Write(chunk)
		r.pos += int64(n)
		total += int64(n)
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// ReadAt copies the object's bytes from off into p. It changes nothing of
// the reader, so minio-go may read parts of one upload at once.
func (r *dataReader) ReadAt(p []byte, off int64) (int, error) {
	if off >= r.size {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && off < r.size {
		i := (r.off + int(off%int64(len(r.d.b)))) % len(r.d.b)
		chunk := r.d.b[i:]
		if rem := r.size - off; int64(len(chunk)) > rem {
			chunk = chunk[:rem]
		}
		c := copy(p[n:], chunk)
		n += c
		off += int64(c)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// Seek lets the SDK rewind the body (it checks for io.Seeker).
func (r *dataReader) Seek(offset int64, whence int) (int64, error) {
	var abs int64
	switch whence {
	case io.SeekStart:
		abs = offset
	case io.SeekCurrent:
		abs = r.pos + offset
	case io.SeekEnd:
		abs = r.size + offset
	}
	if abs < 0 {
		return 0, errors.New("negative seek")
	}
	r.pos = abs
	return abs, nil
}

// errContentMismatch is a GET whose body is not what storbench wrote.
var errContentMismatch = errors.New("the body differs from what was written")

// bodyCheck compares a GET body, as it streams through the worker's
// buffer, with the content storbench wrote for the object (--verify): byte
// j of an object is the data block's byte (offset(key) + j) mod its
// length, so nothing of the object is kept. A worker keeps one and resets
// it per request.
type bodyCheck struct {
	d   *dataBlock
	pos int // the block's index of the next expected byte
	bad bool
}

// reset starts checking the body of the object whose content starts at
// start in the block (offsetOf its key) from byte from of the object (a
// range's first byte).
func (v *bodyCheck) reset(d *dataBlock, start int, from int64) {
	n := len(d.b)
	v.d, v.pos, v.bad = d, (start+int(from%int64(n)))%n, false
}

// check compares the next bytes of the body.
func (v *bodyCheck) check(p []byte) {
	b := v.d.b
	for len(p) > 0 && !v.bad {
		want := b[v.pos:]
		if len(want) > len(p) {
			want = want[:len(p)]
		}
		if !bytes.Equal(p[:len(want)], want) {
			v.bad = true
			return
		}
		p = p[len(want):]
		v.pos += len(want)
		if v.pos == len(b) {
			v.pos = 0
		}
	}
}
