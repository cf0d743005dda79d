package s3

import (
	"errors"
	"io"
	"math"
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

// objectSize returns the size of the next upload: the configured size, or
// with randsize a log2-uniform draw from size/1024 to size, so each
// doubling of size holds the same number of objects (as warp does).
func objectSize(c *config, rng *rand.Rand) int64 {
	max := int64(c.ObjSize)
	if !c.ObjRandSize || max <= 1 {
		return max
	}
	lo := math.Log2(math.Max(1, float64(max)/1024))
	hi := math.Log2(float64(max))
	s := int64(math.Exp2(lo + rng.Float64()*(hi-lo)))
	return min(max, s)
}
