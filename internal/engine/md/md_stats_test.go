package md

import (
	"math"
	"testing"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/results"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestIterationStatistics checks mdtest's table against a hand-computed case.
// Three iterations of file-stat: 1000 items in 1 s, 1000 in 0.5 s and 1500
// in 0.5 s are 1000, 2000 and 3000 ops/s: max 3000, min 1000, mean 2000, and
// sample standard deviation sqrt((1000² + 0² + 1000²) / (3-1)) = 1000.
func TestIterationStatistics(t *testing.T) {
	const s = int64(1e9)
	its := []record.Iteration{
		{Items: 1000, StartNs: 10 * s, EndNs: 11 * s},
		{Items: 1000, StartNs: 20 * s, EndNs: 20*s + s/2},
		{Items: 1500, StartNs: 30 * s, EndNs: 30*s + s/2},
	}
	r := results.IterationRates(its)
	want := []float64{1000, 2000, 3000}
	for i, v := range want {
		if !near(r.PerIter[i], v) {
			t.Errorf("iteration %d: %v ops/s, want %v", i, r.PerIter[i], v)
		}
	}
	if !near(r.Max, 3000) || !near(r.Min, 1000) || !near(r.Mean, 2000) || !near(r.Stddev, 1000) {
		t.Errorf("max %v min %v mean %v stddev %v, want 3000 1000 2000 1000", r.Max, r.Min, r.Mean, r.Stddev)
	}

	// Two hosts: the cluster's iteration is the items of both over the window
	// from the earlier start to the later end. Host a: 1000 items 10.0-11.0 s,
	// host b: 3000 items 10.5-12.0 s: 4000 items in 2 s = 2000 ops/s, not the
	// 1000 + 2000 = 3000 a sum of per-host rates would claim.
	a := &engine.HostResult{Host: "a", Ops: []record.OpStats{{Op: "file-stat", Ops: 1000, StartNs: 10 * s, EndNs: 11 * s,
		Iterations: []record.Iteration{{Items: 1000, StartNs: 10 * s, EndNs: 11 * s}}}}}
	b := &engine.HostResult{Host: "b", Ops: []record.OpStats{{Op: "file-stat", Ops: 3000, StartNs: 10*s + s/2, EndNs: 12 * s,
		Iterations: []record.Iteration{{Items: 3000, StartNs: 10*s + s/2, EndNs: 12 * s}}}}}
	ps := results.BuildPhase("md", "md", nil, []*engine.HostResult{a, b})
	if got := ps.Ops[0].Rate; got == nil || !near(got.Mean, 2000) || ps.Ops[0].OpsPerS == nil || !near(*ps.Ops[0].OpsPerS, 2000) {
		t.Errorf("merged rate %+v ops/s %v, want 2000", got, ps.Ops[0].OpsPerS)
	}
}

// TestStageWindow checks the engine's own rule for one host: an iteration's
// items are all workers' and its window ends when the slowest worker does.
func TestStageWindow(t *testing.T) {
	pr := &prepared{p: DefaultParams(), ops: []opKind{opTreeCreate, opFileStat, opTreeRemove}, workers: 2, nodes: 1}
	r, err := newRun(pr)
	if err != nil {
		t.Fatal(err)
	}
	r.op = 1
	r.startM = 1_000_000_000
	r.workers[0].items, r.workers[0].endM = 1000, 1_500_000_000
	r.workers[1].items, r.workers[1].endM = 3000, 3_000_000_000
	r.end()
	its := r.its[1]
	if len(its) != 1 || its[0].Items != 4000 || its[0].EndNs-its[0].StartNs != 2_000_000_000 {
		t.Fatalf("iteration %+v, want 4000 items over 2 s", its)
	}
	if got := results.IterationRates(its).Mean; !near(got, 2000) {
		t.Errorf("rate %v, want 2000 ops/s", got)
	}
}
