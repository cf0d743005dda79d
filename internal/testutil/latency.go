package testutil

import (
	"reflect"
	"testing"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/record"
)

// CheckLatSeconds checks a host result's per-second latency the way a user
// relies on it: every operation has histograms in at least minSecs
// intervals, each interval is one of the operation's intervals in the
// series or borders one, and the seconds of an operation add up, bin by
// bin, to its phase histogram.
//
// Bordering, because counts and latencies change interval at slightly
// different instants: the sampler asks each worker for its histogram, and
// then reads the counters. An operation that ends between the two is
// counted in the interval that ends at the tick and its latency lands in
// the one that starts there; when it was the operation's last (a stage
// that ended at the tick), that interval has latency but no count.
func CheckLatSeconds(t testing.TB, res *engine.HostResult, minSecs int) {
	t.Helper()
	if len(res.LatencySeconds) == 0 {
		t.Fatal("the result has no per-second latency")
	}
	secs, err := record.DecodeLatSeconds(res.LatencySeconds)
	if err != nil {
		t.Fatal(err)
	}
	type span struct {
		op         string
		start, end int64
	}
	series := map[span]bool{}
	starts, ends := map[span]bool{}, map[span]bool{}
	for _, s := range res.Series {
		series[span{s.Op, s.StartNs, s.EndNs}] = true
		starts[span{op: s.Op, start: s.StartNs}] = true
		ends[span{op: s.Op, end: s.EndNs}] = true
	}
	byOp := map[string]record.Bins{}
	n := map[string]int{}
	for _, s := range secs {
		if !series[span{s.Op, s.StartNs, s.EndNs}] && !ends[span{op: s.Op, end: s.StartNs}] && !starts[span{op: s.Op, start: s.EndNs}] {
			t.Errorf("%s interval %d-%d is neither in the series nor next to one of its intervals", s.Op, s.StartNs, s.EndNs)
		}
		if s.SumNs <= 0 || len(s.Bins) == 0 {
			t.Errorf("%s interval %d-%d: sum %v, %d bins", s.Op, s.StartNs, s.EndNs, s.SumNs, len(s.Bins))
		}
		byOp[s.Op] = record.Merge(byOp[s.Op], s.Bins)
		n[s.Op]++
	}
	for _, o := range res.Ops {
		if o.Ops == 0 {
			continue
		}
		if n[o.Op] < minSecs {
			t.Errorf("%s: histograms in %d intervals, want at least %d", o.Op, n[o.Op], minSecs)
		}
		if got := byOp[o.Op]; !reflect.DeepEqual(got, o.Lat.Bins) {
			t.Errorf("%s: the seconds hold %d operations in %d bins, the phase %d in %d bins", o.Op, got.Total(), len(got), o.Lat.Bins.Total(), len(o.Lat.Bins))
		}
	}
}
