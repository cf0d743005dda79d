package infile

import (
	"bytes"
	"errors"
	"io"

	"github.com/klauspost/compress/zstd"
)

// MaxZstdWindow is the largest zstd window storbench decodes: its own
// files (and warp's) are written with windows of 8 MiB at most, and a
// frame asking for more is refused before its window is allocated.
const MaxZstdWindow = 64 << 20

// ZstdRatio bounds how many times its size a compressed file of requests
// (benchdata, warp's files) may decompress to: text of measurements
// compresses 5 to 20 times; a zstd bomb, tens of thousands of times.
const ZstdRatio = 256

// ZstdReader returns a reader of what the zstd stream r decompresses to,
// which fails once more than limit bytes came out (a zstd bomb: a small
// file that decompresses to gigabytes); a frame whose window is larger
// than limit or MaxZstdWindow is refused before any of it is decoded:
// memory stays within about one window, and the time within what limit
// bytes take. concurrency is the decoder's (1: it decodes as it is read;
// 2 lets decoding overlap what the caller does). The refusal (exit code 2)
// names what, the file. Close the reader when done.
func ZstdReader(what string, r io.Reader, limit int64, concurrency int) (io.ReadCloser, error) {
	window := uint64(min(max(limit, zstd.MinWindowSize), MaxZstdWindow))
	dec, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(max(concurrency, 1)), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(window), zstd.WithDecoderMaxMemory(window))
	if err != nil {
		return nil, err
	}
	return &boundedZstd{dec: dec, what: what, left: limit, limit: limit}, nil
}

// Unzstd decompresses data whole, refusing (exit code 2) more than limit
// bytes of output, as ZstdReader does.
func Unzstd(what string, data []byte, limit int64) ([]byte, error) {
	r, err := ZstdReader(what, bytes.NewReader(data), limit, 1)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out bytes.Buffer
	if _, err := out.ReadFrom(r); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// boundedZstd counts what its decoder gives and fails past the limit.
type boundedZstd struct {
	dec   *zstd.Decoder
	what  string
	left  int64
	limit int64
}

func (b *boundedZstd) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, b.tooMuch()
	}
	// One byte past the limit is asked for, to tell a file of exactly
	// limit bytes from a larger one.
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.dec.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n, b.tooMuch()
	}
	if errors.Is(err, zstd.ErrWindowSizeExceeded) || errors.Is(err, zstd.ErrDecoderSizeExceeded) {
		return n, b.tooMuch()
	}
	return n, err
}

func (b *boundedZstd) tooMuch() error {
	return refuse("%s decompresses to more than %s, more than storbench could have written there: it is damaged, or not storbench's (a zstd bomb?)",
		b.what, Size(b.limit))
}

// Close releases the decoder.
func (b *boundedZstd) Close() error {
	b.dec.Close()
	return nil
}
