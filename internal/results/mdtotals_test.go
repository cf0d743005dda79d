package results

import (
	"math"
	"testing"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
)

// mdtest's rule across hosts, on a hand-computed fixture: three hosts start
// each of three iterations at a common start (the barrier's), and an
// iteration's total rate is the items of all hosts over the time from that
// start to the end of the slowest host; Max, Min, Mean and Std Dev (n-1) are
// taken over the iterations' totals. Each host keeps its own figures, and
// the totals' percentiles come from the hosts' added histograms.
func TestMdTotalsAcrossHostsHandComputed(t *testing.T) {
	const s = int64(1_700_000_000_000_000_000) // the first common start
	const sec = int64(1e9)
	starts := []int64{s, s + 10*sec, s + 20*sec}
	// items and end (seconds after the iteration's start) per host, per iteration
	items := [3][3]uint64{{1000, 1000, 500}, {2000, 1000, 1500}, {3000, 1000, 3000}}
	ends := [3][3]float64{{0.5, 0.25, 0.5}, {1.0, 0.5, 0.5}, {1.5, 1.0, 2.0}}
	// Iteration 1: 6000 items, slowest host ends 1.5 s after the start: 4000/s.
	// Iteration 2: 3000 items over 1.0 s: 3000/s. Iteration 3: 5000 over 2.0 s: 2500/s.
	// Mean 3166.667; deviations 833.333, -166.667, -666.667; squares sum to
	// 1,166,666.667; over n-1 = 2: 583,333.333; std dev 763.763.
	wantPer := []float64{4000, 3000, 2500}
	wantStd := math.Sqrt(583333.3333333334)
	// Host h1 ran its iterations at 2000, 2000 and 3000/s.
	wantH1 := []float64{2000, 2000, 3000}

	var hosts []*model.HostResult
	for h := range 3 {
		o := record.OpStats{Op: "file-create"}
		for it, st := range starts {
			end := st + int64(ends[h][it]*float64(sec))
			o.Iterations = append(o.Iterations, record.Iteration{Items: items[h][it], StartNs: st, EndNs: end})
			o.Ops += items[h][it]
		}
		o.StartNs, o.EndNs = o.Iterations[0].StartNs, o.Iterations[2].EndNs
		// Host h's latencies: all at (h+1) µs but ten slow ones at 1 ms.
		o.Lat.Bins = record.Bins{{V: int64(h+1) * 1000, N: o.Ops - 10}, {V: 1_000_000, N: 10}}
		hosts = append(hosts, &model.HostResult{Host: []string{"h0", "h1", "h2"}[h], Ops: []record.OpStats{o}})
	}
	ps := BuildPhase("md", "md", nil, hosts)
	tot := ps.Ops[0]
	r := tot.Rate
	if r == nil || len(r.PerIter) != 3 {
		t.Fatalf("rate %+v", r)
	}
	for i, w := range wantPer {
		if !near(r.PerIter[i], w, 1e-9) {
			t.Errorf("iteration %d: %.3f op/s, want %.3f", i+1, r.PerIter[i], w)
		}
	}
	if r.Max != 4000 || r.Min != 2500 || !near(r.Mean, 9500.0/3, 1e-9) || !near(r.Stddev, wantStd, 1e-9) {
		t.Errorf("max %.3f min %.3f mean %.3f std dev %.3f; want 4000, 2500, 3166.667, %.3f", r.Max, r.Min, r.Mean, r.Stddev, wantStd)
	}
	if tot.OpsPerS == nil || !near(*tot.OpsPerS, r.Mean, 1e-9) || tot.Ops != 14000 {
		t.Errorf("total %v op/s over %d items", tot.OpsPerS, tot.Ops)
	}
	h1 := ps.PerHost[1].Ops[0].Rate
	for i, w := range wantH1 {
		if !near(h1.PerIter[i], w, 1e-9) {
			t.Errorf("host h1 iteration %d: %.3f op/s, want %.3f", i+1, h1.PerIter[i], w)
		}
	}
	// 14,000 latencies: h0's 2,490 at 1 µs, h1's 4,490 at 2 µs, h2's 6,990
	// at 3 µs, thirty at 1 ms (cumulative 2,490, 6,980, 13,970, 14,000).
	// The 50th percentile (the 7,000th) is 3 µs where the hosts' p50s
	// average 2 µs; the 99.5th (13,930th) 3 µs; the 99.9th (13,986th) 1 ms.
	if tot.Lat == nil || tot.Lat.P50Ns != 3000 || tot.Lat.P995Ns != 3000 || tot.Lat.P999Ns != 1_000_000 {
		t.Errorf("latency %+v; want p50 3000, p99.5 3000, p99.9 1000000 ns", tot.Lat)
	}
}
