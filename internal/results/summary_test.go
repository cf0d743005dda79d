package results

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
)

// Results folders written before schema version 2 still read: latency
// moves into Lat, and the 0 B/s version 1 wrote for operations that move no
// bytes becomes absent.
func TestReadSummaryVersion1(t *testing.T) {
	s, err := ReadSummary(filepath.Join("testdata", "v1"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		bw    bool
		p99Ns int64
	}{"GET": {true, 43778047}, "STAT": {false, 36175871}, "PUT": {true, 67633151}, "DELETE": {false, 148897791}}
	ops := s.Phases[0].Ops
	if len(ops) != len(want) {
		t.Fatalf("%d ops, want %d", len(ops), len(want))
	}
	for _, o := range append(ops, s.Phases[0].PerHost[0].Ops...) {
		w := want[o.Op]
		if (o.BwBytesPerS != nil) != w.bw {
			t.Errorf("%s: byte throughput %v, want present %v", o.Op, o.BwBytesPerS, w.bw)
		}
		if o.OpsPerS == nil || *o.OpsPerS <= 0 {
			t.Errorf("%s: ops/s %v", o.Op, o.OpsPerS)
		}
		if o.Lat == nil || o.Lat.P99Ns != w.p99Ns {
			t.Errorf("%s: latency %+v, want p99 %d ns", o.Op, o.Lat, w.p99Ns)
		}
	}
}

// A figure not measured is absent: no byte throughput for an operation
// that moved no bytes, no rate without a window, no latency or time to
// first byte without a sample. What was measured is kept, 0 included.
func TestOpLeavesOutWhatWasNotMeasured(t *testing.T) {
	s := int64(1e9)
	lat := record.Hist{Stats: record.LatStats{N: 2, Min: 10, Max: 30, Mean: 20}, Bins: record.Bins{{V: 10, N: 1}, {V: 30, N: 1}}}
	for _, tc := range []struct {
		name           string
		o              record.OpStats
		bw, ops, l, tt bool
	}{
		{"read", record.OpStats{Op: "read", Ops: 2, Bytes: 8192, StartNs: s, EndNs: 2 * s, Lat: lat}, true, true, true, false},
		{"stat moves no bytes", record.OpStats{Op: "stat", Ops: 2, StartNs: s, EndNs: 2 * s, Lat: lat}, false, true, true, false},
		{"no window", record.OpStats{Op: "read", Ops: 2, Bytes: 8192, Lat: lat}, false, false, true, false},
		{"no latency sample (fio disable_clat)", record.OpStats{Op: "read", Ops: 2, Bytes: 8192, StartNs: s, EndNs: 2 * s}, true, true, false, false},
		{"an empty time to first byte", record.OpStats{Op: "GET", Ops: 2, Bytes: 8192, StartNs: s, EndNs: 2 * s, Lat: lat, TTFB: &record.Hist{}}, true, true, true, false},
		{"time to first byte", record.OpStats{Op: "GET", Ops: 2, Bytes: 8192, StartNs: s, EndNs: 2 * s, Lat: lat, TTFB: &lat}, true, true, true, true},
		{"nothing done in a window", record.OpStats{Op: "DELETE", StartNs: s, EndNs: 2 * s}, false, true, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := Op(tc.o)
			if (o.BwBytesPerS != nil) != tc.bw || (o.OpsPerS != nil) != tc.ops || (o.Lat != nil) != tc.l || (o.TTFB != nil) != tc.tt {
				t.Errorf("bw %v ops/s %v lat %v ttfb %v; want present %v %v %v %v", o.BwBytesPerS, o.OpsPerS, o.Lat, o.TTFB, tc.bw, tc.ops, tc.l, tc.tt)
			}
			if tc.name == "nothing done in a window" && (o.OpsPerS == nil || *o.OpsPerS != 0) {
				t.Errorf("a measured 0 ops/s must stay 0, got %v", o.OpsPerS)
			}
			// Totals over hosts keep absent figures absent.
			h := &model.HostResult{Host: "h", Ops: []record.OpStats{tc.o}}
			tot := BuildPhase("p", "md", nil, []*model.HostResult{h, {Host: "g", Ops: []record.OpStats{tc.o}}}).Ops[0]
			if (tot.BwBytesPerS != nil) != tc.bw || (tot.Lat != nil) != tc.l {
				t.Errorf("totals: bw %v lat %v; want present %v %v", tot.BwBytesPerS, tot.Lat, tc.bw, tc.l)
			}
		})
	}
}

// Per-size-class figures: each host's as measured, and totals with counts
// added, histograms merged (so percentiles are exact) and throughput by
// IOR's rule, all requests over the first start to the last end (issue
// 20). Hand-computed: host 1 made 3 GETs of 4 KiB objects (10, 20, 30 ms)
// and 1 of a 1 MiB object from 1 s to 3 s, host 2 one 4 KiB GET (40 ms)
// from 1 s to 2 s: the window is 2 s.
func TestBuildPhaseBySize(t *testing.T) {
	rec := func(lats ...int64) record.Hist {
		r := record.NewRecorder([]string{"GET"}, false)
		for _, l := range lats {
			r.Op(0).Record(l, 0)
		}
		return r.Stats(0, "GET").Lat
	}
	small := record.SizeClass{Label: "<=4KiB", MinBytes: 1, MaxBytes: 4096}
	big := record.SizeClass{Label: "4KiB-1MiB", MinBytes: 4097, MaxBytes: 1 << 20}
	s := int64(1e9)
	h1 := &model.HostResult{Host: "c1",
		Ops: []record.OpStats{{Op: "GET", Ops: 4, Bytes: 3*4096 + 1<<20, StartNs: s, EndNs: 3 * s, Lat: rec(10e6, 20e6, 30e6, 50e6)}},
		BySize: []record.SizeOpStats{
			{Size: small, OpStats: record.OpStats{Op: "GET", Ops: 3, Bytes: 3 * 4096, StartNs: s, EndNs: 3 * s, Lat: rec(10e6, 20e6, 30e6)}},
			{Size: big, OpStats: record.OpStats{Op: "GET", Ops: 1, Bytes: 1 << 20, StartNs: s, EndNs: 3 * s, Lat: rec(50e6)}},
		}}
	h2 := &model.HostResult{Host: "c2",
		Ops:    []record.OpStats{{Op: "GET", Ops: 1, Bytes: 4096, StartNs: s, EndNs: 2 * s, Lat: rec(40e6)}},
		BySize: []record.SizeOpStats{{Size: small, OpStats: record.OpStats{Op: "GET", Ops: 1, Bytes: 4096, StartNs: s, EndNs: 2 * s, Lat: rec(40e6)}}}}
	ps := BuildPhase("g", "s3", nil, []*model.HostResult{h1, h2})
	if by := ps.PerHost[0].Ops[0].BySize; len(by) != 2 || by[0].Size.Label != "<=4KiB" || *by[0].OpsPerS != 1.5 {
		t.Fatalf("host 1 by size: %+v", by)
	}
	by := ps.Ops[0].BySize
	if len(by) != 2 || by[0].Size.Label != "<=4KiB" || by[1].Size.Label != "4KiB-1MiB" {
		t.Fatalf("totals by size: %+v", by)
	}
	// <=4KiB: 3 + 1 GETs over 2 s, 2 obj/s (the sum of the hosts' rates,
	// 1.5 + 1, is not it); latencies 10, 20, 30, 40 ms: the median is 20
	// ms and the slowest 40 ms (HDR buckets are 1% wide).
	if by[0].Ops != 4 || *by[0].OpsPerS != 2 || *by[0].BwBytesPerS != 2*4096 {
		t.Errorf("<=4KiB: %d GETs, %v obj/s, %v B/s", by[0].Ops, *by[0].OpsPerS, *by[0].BwBytesPerS)
	}
	if l := by[0].Lat; l.P50Ns < 20e6 || l.P50Ns > 20.2e6 || l.MaxNs != 40e6 || l.MinNs != 10e6 {
		t.Errorf("<=4KiB latency %+v", l)
	}
	if by[1].Ops != 1 || *by[1].OpsPerS != 0.5 || by[1].Size.MaxBytes != 1<<20 {
		t.Errorf("4KiB-1MiB: %+v", by[1])
	}
	// The classes add up to the operation.
	if by[0].Ops+by[1].Ops != ps.Ops[0].Ops {
		t.Errorf("classes add up to %d GETs, the operation has %d", by[0].Ops+by[1].Ops, ps.Ops[0].Ops)
	}
}

// A version 4 folder (storbench before version 5, a real fio phase of
// 3 s) kept each host's client samples second by second in
// summary.json: it still reads, its series as version 5's few figures,
// and the phase counts as sampled. A version 5 summary.json keeps no
// series: they are in the host's result.json alone.
func TestReadSummaryVersion4ClientSamples(t *testing.T) {
	dir := filepath.Join("testdata", "v4-client")
	s, err := ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	p := &s.Phases[0]
	h, err := ReadHostResult(dir, p.Dir, p.PerHost[0].Host)
	if err != nil {
		t.Fatal(err)
	}
	series := h.Client.Samples
	sm := p.PerHost[0].Client.Sampled
	if s.SchemaVersion != 4 || sm == nil || sm.Seconds != len(series.TS) || sm.Cores != series.Cores ||
		sm.UsedPct == nil || sm.UsedPct.Max != slices.Max(series.UsedPct) || !p.Sampled() {
		t.Errorf("version %d: samples read as %+v, want %d seconds of cores %s, the highest used %g", s.SchemaVersion, sm, len(series.TS), series.Cores, slices.Max(series.UsedPct))
	}
	ps := BuildPhase(p.Name, p.Engine, p.Formats, []*model.HostResult{h})
	b, err := json.Marshal(ps)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `"samples"`) || strings.Contains(string(b), `"core_busy_pct"`) || !strings.Contains(string(b), `"sampled"`) {
		t.Errorf("a version %d summary keeps the series or lacks their figures:\n%s", SchemaVersion, b)
	}
}
