package record

import (
	"math"
	"testing"
)

// Hand-computed: 10 operations, bins 100x4, 200x3, 300x2, 1000x1.
// p50: 5th op -> cumulative 4 < 5, 7 >= 5 -> 200. p90: 9th -> 300.
// p99: 9.9 -> the 10th op -> 1000. p40: 4 ops -> cumulative 4 >= 4 -> 100.
func TestPercentileFollowsFioRule(t *testing.T) {
	b := Bins{{100, 4}, {200, 3}, {300, 2}, {1000, 1}}
	for p, want := range map[float64]int64{40: 100, 50: 200, 90: 300, 99: 1000, 100: 1000, 1: 100} {
		if got := b.Percentile(p); got != want {
			t.Errorf("p%v = %d, want %d", p, got, want)
		}
	}
	if (Bins{}).Percentile(99) != 0 {
		t.Error("empty histogram must give 0")
	}
}

// Merging two hosts' bins gives the percentiles of all operations together,
// which averaging the hosts' percentiles does not.
func TestMergedPercentileIsNotTheAverage(t *testing.T) {
	fast := Bins{{100, 99}, {110, 1}}
	slow := Bins{{1000, 99}, {5000, 1}}
	m := Merge(fast, slow)
	if m.Total() != 200 {
		t.Fatalf("total %d", m.Total())
	}
	// 200 ops: p50 is the 100th op -> the fast host's 110 bin.
	if got := m.Percentile(50); got != 110 {
		t.Errorf("merged p50 = %d, want 110", got)
	}
	avg := (fast.Percentile(50) + slow.Percentile(50)) / 2
	if avg == m.Percentile(50) {
		t.Errorf("test is not discriminating")
	}
	if got := Merge(Bins{{5, 1}}, Bins{{5, 2}, {7, 1}}); len(got) != 2 || got[0] != (Bin{5, 3}) || got[1] != (Bin{7, 1}) {
		t.Errorf("merge of equal values: %v", got)
	}
}

func TestLatStatsCombineEqualsWhole(t *testing.T) {
	a := []int64{10, 20, 30, 40}
	b := []int64{100, 300}
	var sa, sb, all LatStats
	for _, x := range a {
		welford(&sa, x)
		welford(&all, x)
	}
	for _, x := range b {
		welford(&sb, x)
		welford(&all, x)
	}
	c := sa.Combine(sb)
	// Hand-computed: mean 500/6 = 83.333; sample variance of
	// {10,20,30,40,100,300}: squared deviations sum to 61333.33, /5 = 12266.67
	// -> stddev 110.755.
	if c.N != 6 || c.Min != 10 || c.Max != 300 || math.Abs(c.Mean-83.3333333) > 1e-6 {
		t.Fatalf("combined %+v", c)
	}
	if math.Abs(c.Stddev()-110.755) > 1e-3 || math.Abs(c.Stddev()-all.Stddev()) > 1e-9 {
		t.Errorf("stddev %v, whole %v, want 110.755", c.Stddev(), all.Stddev())
	}
	// fio's mean and stddev survive the round trip.
	s := StatsFromMoments(6, 10, 300, c.Mean, c.Stddev())
	if math.Abs(s.Stddev()-c.Stddev()) > 1e-9 {
		t.Errorf("moments round trip: %v", s.Stddev())
	}
}

func TestRecorderMergesWorkers(t *testing.T) {
	ops := []string{"get"}
	w1, w2 := NewRecorder(ops, true), NewRecorder(ops, true)
	for i := 1; i <= 100; i++ {
		w1.Op(0).Record(int64(i)*1000, 10)
		w2.Op(0).Record(int64(i)*1000+500_000, 10)
	}
	w2.Op(0).RecordTTFB(42)
	w2.Op(0).RecordError("timeout")
	all := CombineAll([]OpStats{w1.Stats(0, "get")}, []OpStats{w2.Stats(0, "get")})
	if len(all) != 1 {
		t.Fatal(all)
	}
	g := all[0]
	if g.Ops != 200 || g.Bytes != 2000 || g.Errors != 1 || g.ErrorKinds["timeout"] != 1 || g.TTFB == nil || g.TTFB.Stats.N != 1 {
		t.Fatalf("merged %+v", g)
	}
	// 200 values: 1..100 us and 501..600 us; p50 is the 100th, 100 us (within 1%).
	if p := g.Lat.Bins.Percentile(50); p < 100_000 || p > 101_000 {
		t.Errorf("p50 %d, want 100 us", p)
	}
	if p := g.Lat.Bins.Percentile(99); p < 598_000 || p > 606_000 {
		t.Errorf("p99 %d, want about 598 us", p)
	}
}
