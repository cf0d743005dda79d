package s3

import (
	"testing"
	"time"

	"github.com/storbench/storbench/internal/record"
)

func flat(n int, f func(i int) uint64) []record.Second {
	var s []record.Second
	for i := 0; i < n; i++ {
		s = append(s, record.Second{StartNs: int64(i) * 1e9, EndNs: int64(i+1) * 1e9, Op: "GET", Ops: f(i), Bytes: f(i) * 4096})
	}
	return s
}

func TestAutoTerm(t *testing.T) {
	a := autoTerm{pct: 7.5, minDur: 10 * time.Second, bytes: true}
	// Warm-up then steady: stable once 7/25 of the run spans 10 s (36 s).
	warm := func(i int) uint64 {
		if i < 5 {
			return uint64(100 * (i + 1))
		}
		return 1000
	}
	if a.stable(flat(30, warm)) {
		t.Error("stable after 30 s: 7/25 of 30 s is under --autoterm.dur 10s")
	}
	if !a.stable(flat(40, warm)) {
		t.Error("not stable after 40 s of steady throughput")
	}
	// A drift of 1% per second over the window is more than 7.5%.
	drift := func(i int) uint64 { return uint64(1000 + 10*i) }
	if a.stable(flat(60, drift)) {
		t.Error("a steady drift was taken as stable")
	}
	// Ops/s for benchmarks that move no data.
	b := autoTerm{pct: 7.5, minDur: time.Second}
	if !b.stable(flat(30, func(int) uint64 { return 50 })) {
		t.Error("constant ops not stable")
	}
}
