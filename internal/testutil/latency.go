package testutil

import (
	"reflect"
	"testing"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/record"
)

// CheckLatSeconds checks a host result's per-second latency the way a user
// relies on it: every operation has histograms in at least minSecs
// intervals, each interval is one of the series' intervals, and the
// seconds of an operation add up, bin by bin, to its phase histogram.
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
	for _, s := range res.Series {
		series[span{s.Op, s.StartNs, s.EndNs}] = true
	}
	byOp := map[string]record.Bins{}
	n := map[string]int{}
	for _, s := range secs {
		if !series[span{s.Op, s.StartNs, s.EndNs}] {
			t.Errorf("%s interval %d-%d is not in the series", s.Op, s.StartNs, s.EndNs)
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
