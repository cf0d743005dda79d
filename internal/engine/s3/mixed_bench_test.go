package s3

import (
	"bytes"
	"context"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/record"
)

// BenchmarkMixedLoopLeanFake runs the mixed benchmark's loop (GET, STAT,
// PUT and DELETE drawn from the default shares, on the object pool) for
// b.N requests on the lean path against the in-process FAKE server (client
// and fake share the CPU). The loop ends by itself: with a rate of one
// request per us (far more than it can do: it never waits) and a
// duration half a us past the b.N-th's time, begin hands out b.N tickets.
// A mixed PUT names its new key with strconv (an allocation or two per
// PUT) and the pool keys its leases by strings (mixed is not the
// per-request CPU case): allocs/op is the loop's and the pool's.
func BenchmarkMixedLoopLeanFake(b *testing.B) {
	f := startFake(b, &fakeS3{size: 4096})
	size := SizeSpec("4KiB")
	c, err := resolve(Params{Op: "mixed", Hosts: []string{f.Addr}, AccessKey: "a", SecretKey: "s", ObjSize: &size}, noKeys)
	if err != nil {
		b.Fatal(err)
	}
	keys, sizes, vers := make([]string, 1000), make([]int64, 1000), make([]string, 1000)
	for i := range keys {
		keys[i], sizes[i] = "storbench/r/h/p/w0/p"+strconv.Itoa(i), 4096
	}
	// The fake's bodies are all 'x'.
	ph := &phase{c: c, ops: opNames("mixed"), picker: newHostPicker(1, "weighed", 0),
		keys: keys, sizes: sizes, pool: newObjectPool(keys, sizes, vers),
		data: &dataBlock{b: bytes.Repeat([]byte{'x'}, 64<<10)}}
	wk := &worker{ph: ph, rec: record.NewRecorder(ph.ops, true), buf: make([]byte, readBufSize),
		rng: rand.New(rand.NewPCG(1, 2)), pfx: "storbench/r/h/p/w0/", lean: newLeanClient(c)}
	defer wk.lean.bind(context.Background())()
	c.Rate, c.duration = 1e6, time.Duration(b.N-1)*time.Microsecond+500*time.Nanosecond
	b.ReportAllocs()
	b.ResetTimer()
	ph.monoBase = time.Now()
	wk.loopMixed(context.Background())
	b.StopTimer()
	var n uint64
	for i := range ph.ops {
		ops, _, errs := wk.rec.Op(i).Counts()
		if errs != 0 {
			b.Fatalf("%s: %d errors", ph.ops[i], errs)
		}
		n += ops
	}
	if n != uint64(b.N) {
		b.Fatalf("%d requests, want %d", n, b.N)
	}
}
