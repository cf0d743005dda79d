package record

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A bucket's bounds are Prometheus' schema 5 in seconds: a latency sits in
// the bucket whose upper bound is the first at or above it.
func TestLiveIndexBounds(t *testing.T) {
	for _, ns := range []int64{1, 999, 1000, 1001, 250_000, 1_000_000_000, 3_600_000_000_000} {
		i := LiveIndex(ns)
		s := float64(ns) / 1e9
		if up, low := LiveUpper(i), LiveUpper(i-1); s > up*(1+1e-12) || s <= low*(1-1e-12) {
			t.Errorf("%d ns in bucket %d (%g, %g] s", ns, i, low, up)
		}
	}
	if LiveIndex(1_000_000_000) != 0 {
		t.Errorf("1 s is in bucket %d, want 0 (upper bound 2^0)", LiveIndex(1_000_000_000))
	}
}

// Workers record while a sampler ticks; the feed's cumulative histogram,
// taken after every tick, ends holding every operation, in the buckets
// the phase histogram's bins fall in, and never goes back.
func TestLiveFeedAddsUpToPhase(t *testing.T) {
	names := []string{"get", "put"}
	const workers = 3
	recs := make([]*Recorder, workers)
	for i := range recs {
		recs[i] = NewRecorder(names, false)
	}
	s := NewSampler(names, recs, 1)
	feed := NewLiveFeed(s)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 3))
			for i := 0; !stop.Load() || i < 500; i++ {
				if w == 2 && i == 100 {
					time.Sleep(5 * time.Millisecond) // answers the sampler late
				}
				recs[w].Op(i&1).Record(int64(rng.ExpFloat64()*80_000)+1, 1)
			}
		}()
	}
	prev := map[string]uint64{}
	for tick := int64(2); tick < 60; tick++ {
		s.Sample(tick)
		for _, l := range feed.Take() {
			if l.N < prev[l.Op] {
				t.Fatalf("%s went back from %d to %d operations", l.Op, prev[l.Op], l.N)
			}
			prev[l.Op] = l.N
		}
		time.Sleep(200 * time.Microsecond)
		if tick == 40 {
			stop.Store(true)
		}
	}
	wg.Wait()
	s.Sample(1000)
	s.LatSeconds() // takes in what the workers still held
	got := feed.Take()
	if len(got) != 2 {
		t.Fatalf("feed has %d operations", len(got))
	}
	for i, name := range names {
		var phase OpStats
		for _, r := range recs {
			phase = phase.Combine(r.Stats(i, name))
		}
		want := LiveLatOf(name, phase.Lat.Bins, 0)
		g := got[i]
		if g.N != phase.Ops || !reflect.DeepEqual(g.Buckets, want.Buckets) {
			t.Errorf("%s: feed holds %d operations in %d buckets, the phase %d in %d", name, g.N, len(g.Buckets), phase.Ops, len(want.Buckets))
		}
		if math.Abs(g.SumNs-phase.Lat.Stats.Mean*float64(phase.Ops)) > 1e-6*g.SumNs {
			t.Errorf("%s: latency sum %g, the phase's %g", name, g.SumNs, phase.Lat.Stats.Mean*float64(phase.Ops))
		}
	}
}

// A second's histogram is the difference of two cumulative ones, and its
// percentiles are within a bucket (2.2%) of the exact ones.
func TestLiveLatSecond(t *testing.T) {
	var before, second Bins
	for v := int64(1000); v <= 100_000; v += 1000 {
		before = append(before, Bin{V: v, N: 1})
		second = append(second, Bin{V: v * 3, N: 2})
	}
	a := LiveLatOf("get", before, 0)
	b := LiveLatOf("get", Merge(before, second), 0)
	d := b.Sub(a)
	if d.N != second.Total() {
		t.Fatalf("second holds %d operations, want %d", d.N, second.Total())
	}
	for _, p := range []float64{50, 99, 99.9} {
		got, ok := d.Percentile(p)
		want := second.Percentile(p)
		if !ok || float64(got) < float64(want) || float64(got) > float64(want)*1.023 {
			t.Errorf("p%g: %d ns, exact %d", p, got, want)
		}
	}
	if sum := a.Add(d); !reflect.DeepEqual(sum.Buckets, b.Buckets) {
		t.Error("first + second is not the cumulative histogram")
	}
	if _, ok := (LiveLat{}).Percentile(50); ok {
		t.Error("an empty histogram has a percentile")
	}
	j, _ := json.Marshal(d)
	var back LiveLat
	if err := json.Unmarshal(j, &back); err != nil || !reflect.DeepEqual(back, d) {
		t.Fatalf("JSON round trip: %v", err)
	}
}
