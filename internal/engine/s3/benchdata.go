package s3

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// BenchDataHeader is the first line of a benchdata file. One line follows per
// request: operation, worker, endpoint, start (Unix ns; the scheduled start
// with --rate), time to first byte and latency (ns from start; ttfb 0 when
// not measured), bytes moved, and the error kind (empty when it succeeded).
const BenchDataHeader = "op\tworker\tendpoint\tstart_unix_ns\tttfb_ns\tlatency_ns\tbytes\terror"

const opLogChunk = 64 << 10

// opLog streams request lines to a zstd file. Each worker fills its own
// chunk and hands it over when full; one goroutine compresses and writes, so
// a worker never formats into shared memory or takes a lock per request.
// Chunks are recycled: at steady state nothing is allocated.
type opLog struct {
	f    *os.File
	bw   *bufio.Writer
	zw   *zstd.Encoder
	full chan []byte
	free chan []byte
	wg   sync.WaitGroup
	err  error
}

func newOpLog(path string, workers int) (*opLog, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("s3: benchdata: %v", err)
	}
	bw := bufio.NewWriterSize(f, 256<<10)
	zw, err := zstd.NewWriter(bw, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	if err != nil {
		f.Close()
		return nil, err
	}
	l := &opLog{f: f, bw: bw, zw: zw, full: make(chan []byte, 2*workers+4), free: make(chan []byte, 2*workers+4)}
	if _, err := zw.Write([]byte(BenchDataHeader + "\n")); err != nil {
		f.Close()
		return nil, err
	}
	l.wg.Add(1)
	go l.loop()
	return l, nil
}

func (l *opLog) loop() {
	defer l.wg.Done()
	for c := range l.full {
		if l.err == nil {
			_, l.err = l.zw.Write(c)
		}
		select {
		case l.free <- c[:0]:
		default:
		}
	}
}

// chunk returns an empty chunk for a worker.
func (l *opLog) chunk() []byte {
	select {
	case c := <-l.free:
		return c
	default:
		return make([]byte, 0, opLogChunk+512)
	}
}

// close flushes and closes the file; every worker must have flushed first.
func (l *opLog) close() error {
	close(l.full)
	l.wg.Wait()
	err := l.err
	if e := l.zw.Close(); err == nil {
		err = e
	}
	if e := l.bw.Flush(); err == nil {
		err = e
	}
	if e := l.f.Close(); err == nil {
		err = e
	}
	return err
}

// AppendBenchLine appends one request's line (BenchDataHeader's columns) to
// b without allocating beyond b's growth.
func AppendBenchLine[S string | []byte](b []byte, op S, worker int, endpoint S, startNs, ttfbNs, latNs, bytes int64, errKind S) []byte {
	b = append(b, op...)
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(worker), 10)
	b = append(b, '\t')
	b = append(b, endpoint...)
	b = append(b, '\t')
	b = strconv.AppendInt(b, startNs, 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, ttfbNs, 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, latNs, 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, bytes, 10)
	b = append(b, '\t')
	b = append(b, errKind...)
	return append(b, '\n')
}

// opLine is a worker's writer into the log.
type opLine struct {
	l   *opLog
	buf []byte
}

func (w *opLine) add(op string, worker int, endpoint string, startNs, ttfbNs, latNs, bytes int64, errKind string) {
	if w.l == nil {
		return
	}
	if w.buf == nil {
		w.buf = w.l.chunk()
	}
	b := AppendBenchLine(w.buf, op, worker, endpoint, startNs, ttfbNs, latNs, bytes, errKind)
	w.buf = b
	if len(b) >= opLogChunk {
		w.flush()
	}
}

func (w *opLine) flush() {
	if w.l == nil || len(w.buf) == 0 {
		return
	}
	w.l.full <- w.buf
	w.buf = nil
}
