package results

import (
	"github.com/storbench/storbench/internal/record"
	"math"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// The Gluster fixture: three iterations of a write point on two clients.
// Totals per iteration (MiB/s): 100+110=210, 95+105=200, 105+115=220.
// Hand-computed: mean 210; deviations -0,-10,+10 -> sum of squares 200,
// sample variance 100, stddev 10, CoV 10/210 = 4.762%; 95% CI
// 210 ± 4.303*10/sqrt(3) = 210 ± 24.844. Per-client lowest 100, 95, 105 ->
// mean 100; highest 110, 105, 115 -> 110; average 105, 100, 110 -> 105.
func TestSweepStatisticsGlusterFixture(t *testing.T) {
	mib := float64(1 << 20)
	var phases []PhaseSummary
	for i, hosts := range [][2]float64{{100, 110}, {95, 105}, {105, 115}} {
		p := PhaseSummary{Name: "w", Engine: "fio", Report: "bandwidth", Status: StatusCompleted, Group: "iozone",
			Point: []KV{{"size", "4g"}, {"rw", "write"}}, Iteration: i + 1}
		p.Ops = []OpSummary{{Op: "write", BwBytesPerS: Figure((hosts[0] + hosts[1]) * mib)}}
		p.PerHost = []HostOps{{Host: "c1", Ops: []OpSummary{{Op: "write", BwBytesPerS: Figure(hosts[0] * mib)}}},
			{Host: "c2", Ops: []OpSummary{{Op: "write", BwBytesPerS: Figure(hosts[1] * mib)}}}}
		phases = append(phases, p)
	}
	sw := Sweeps(phases, DefaultCoVWarn)
	if len(sw) != 1 {
		t.Fatalf("want one sweep point, got %d", len(sw))
	}
	st := sw[0].Metrics["bw_bytes_per_s"]
	if sw[0].Headline != "bw_bytes_per_s" || st.N != 3 {
		t.Fatalf("headline %s n %d", sw[0].Headline, st.N)
	}
	checks := map[string][2]float64{
		"mean": {st.Mean / mib, 210}, "stddev": {st.Stddev / mib, 10}, "cov": {st.CoV, 10.0 / 210},
		"ci_low": {st.CI95Low / mib, 210 - 24.8434}, "ci_high": {st.CI95High / mib, 210 + 24.8434},
		"min": {st.Min / mib, 200}, "max": {st.Max / mib, 220},
		"host_min": {sw[0].Hosts.Min / mib, 100}, "host_max": {sw[0].Hosts.Max / mib, 110}, "host_avg": {sw[0].Hosts.Avg / mib, 105},
	}
	for name, c := range checks {
		if !near(c[0], c[1], 1e-3) {
			t.Errorf("%s = %v, want %v", name, c[0], c[1])
		}
	}
	// CoV 4.76% is under the default 5% warning, over a 4% one.
	if sw[0].Unstable {
		t.Error("flagged unstable at 4.76% CoV with a 5% threshold")
	}
	if !Sweeps(phases, 0.04)[0].Unstable {
		t.Error("not flagged unstable at 4.76% CoV with a 4% threshold")
	}
}

func TestSweepsLeaveOutSinglePhases(t *testing.T) {
	p := PhaseSummary{Name: "x", Engine: "fio", Status: StatusCompleted, Group: "x", Ops: []OpSummary{{Op: "read", BwBytesPerS: Figure(1)}}}
	failed := p
	failed.Status, failed.Point = StatusFailed, []KV{{"bs", "4k"}}
	if got := Sweeps([]PhaseSummary{p, failed}, DefaultCoVWarn); len(got) != 0 {
		t.Errorf("a lone phase and a failed one made sweeps: %+v", got)
	}
}

func TestTQuantile(t *testing.T) {
	for df, want := range map[int]float64{1: 12.706, 2: 4.303, 9: 2.262, 30: 2.042, 1000: 1.960} {
		if got := TQuantile975(df); got != want {
			t.Errorf("t(%d) = %v, want %v", df, got, want)
		}
	}
}

// Score: bandwidth figures 1 and 4 GiB/s -> geomean 2; metadata 10 and
// 1000 kIOPS -> geomean 100; score sqrt(2*100) = 14.142.
func TestScore(t *testing.T) {
	gib := float64(1 << 30)
	phases := []PhaseSummary{
		{Engine: "fio", Report: "bandwidth", Status: StatusCompleted, Ops: []OpSummary{{BwBytesPerS: Figure(gib)}, {BwBytesPerS: Figure(4 * gib)}}},
		{Engine: "fio", Report: "iops", Status: StatusCompleted, Ops: []OpSummary{{BwBytesPerS: Figure(100 * gib)}}},
		{Engine: "md", Status: StatusCompleted, Ops: []OpSummary{{OpsPerS: Figure(10_000)}, {OpsPerS: Figure(1_000_000)}}},
	}
	s := ComputeScore(phases)
	if s == nil || !near(s.BandwidthGiB, 2, 1e-9) || !near(s.MetadataKOps, 100, 1e-9) || !near(s.Score, 14.1421356, 1e-6) {
		t.Fatalf("score %+v", s)
	}
	if s.Label == "" || ComputeScore(phases[:2]) != nil {
		t.Error("score without metadata phases, or unlabelled")
	}
}

func TestIterationRatesHandComputed(t *testing.T) {
	// Rates 100, 200, 300 ops/s: mean 200, sample stddev 100.
	its := []record.Iteration{{Items: 100, StartNs: 0, EndNs: 1e9}, {Items: 400, StartNs: 0, EndNs: 2e9}, {Items: 300, StartNs: 5e9, EndNs: 6e9}}
	r := IterationRates(its)
	if r.Max != 300 || r.Min != 100 || r.Mean != 200 || !near(r.Stddev, 100, 1e-9) {
		t.Errorf("%+v", r)
	}
}
