package results

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/storbench/storbench/internal/record"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// glusterPhases is the Gluster fixture: three iterations of a write point on
// two clients. Totals per iteration (MiB/s): 100+110=210, 95+105=200,
// 105+115=220.
func glusterPhases() []PhaseSummary {
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
	return phases
}

// Hand-computed: mean 210; deviations 0, -10, +10 -> sum of squares 200,
// sample variance 100, stddev 10, CoV 10/210 = 4.762%; 95% CI 210 ±
// t·10/√3 with t(0.975, 2 df) = 0.95/√(2·0.975·0.025) = 4.3026527 (the
// closed form at 2 df) -> 210 ± 24.8414. A table's rounded 4.303 gave
// ± 24.8434, which is what sweeps printed before. Per-client lowest 100,
// 95, 105 -> mean 100; highest 110, 105, 115 -> 110; average 105, 100,
// 110 -> 105.
func TestSweepStatisticsGlusterFixture(t *testing.T) {
	mib := float64(1 << 20)
	phases := glusterPhases()
	sw := Sweeps(phases, SweepOptions{})
	if len(sw) != 1 {
		t.Fatalf("want one sweep point, got %d", len(sw))
	}
	st := sw[0].Metrics["bw_bytes_per_s"]
	if sw[0].Headline != "bw_bytes_per_s" || st.N != 3 {
		t.Fatalf("headline %s n %d", sw[0].Headline, st.N)
	}
	checks := map[string][2]float64{
		"mean": {st.Mean / mib, 210}, "stddev": {st.Stddev / mib, 10}, "cov": {st.CoV, 10.0 / 210},
		"ci_low": {st.CILow / mib, 210 - 24.841377}, "ci_high": {st.CIHigh / mib, 210 + 24.841377},
		"min": {st.Min / mib, 200}, "max": {st.Max / mib, 220},
		"host_min": {sw[0].Hosts.Min / mib, 100}, "host_max": {sw[0].Hosts.Max / mib, 110}, "host_avg": {sw[0].Hosts.Avg / mib, 105},
	}
	for name, c := range checks {
		if !near(c[0], c[1], 1e-6*math.Abs(c[1])) {
			t.Errorf("%s = %.7f, want %.7f", name, c[0], c[1])
		}
	}
	if st.Confidence != 0.95 {
		t.Errorf("confidence %v, want the default 0.95", st.Confidence)
	}
	// CoV 4.76% is under the default 5% warning, over a 4% one.
	if sw[0].Unstable {
		t.Error("flagged unstable at 4.76% CoV with a 5% threshold")
	}
	if !Sweeps(phases, SweepOptions{CoVWarn: 0.04})[0].Unstable {
		t.Error("not flagged unstable at 4.76% CoV with a 4% threshold")
	}
}

// Sweeps give the interval at the confidence asked for: at 90%, t(0.95, 2
// df) = 0.9/√(2·0.95·0.05) = 2.9199856 -> 210 ± 16.858545 MiB/s; at 99%,
// t(0.995, 2) = 0.99/√(2·0.995·0.005) = 9.9248432 -> 210 ± 57.301109.
func TestSweepsUseTheAskedConfidence(t *testing.T) {
	mib := float64(1 << 20)
	for _, c := range []struct{ confidence, half float64 }{{0.90, 16.858545}, {0.99, 57.301109}} {
		sw := Sweeps(glusterPhases(), SweepOptions{Confidence: c.confidence})
		for name, st := range sw[0].Metrics {
			if st.Confidence != c.confidence {
				t.Errorf("%s: confidence %v, want %v", name, st.Confidence, c.confidence)
			}
		}
		st := sw[0].Metrics["bw_bytes_per_s"]
		if lo, hi := st.CILow/mib, st.CIHigh/mib; !near(210-lo, c.half, 1e-6) || !near(hi-210, c.half, 1e-6) {
			t.Errorf("%.0f%%: interval [%.6f, %.6f] MiB/s, want 210 ± %.6f", 100*c.confidence, lo, hi, c.half)
		}
	}
}

// A summary.json of schema version 1 (interval always 95%, named ci95_*)
// still reads with its interval; a current one reads as written.
func TestStatReadsSchemaVersion1(t *testing.T) {
	var old, cur Stat
	if err := json.Unmarshal([]byte(`{"n":3,"mean":210,"ci95_low":185.16,"ci95_high":234.84}`), &old); err != nil {
		t.Fatal(err)
	}
	if old.N != 3 || old.Confidence != 0.95 || old.CILow != 185.16 || old.CIHigh != 234.84 {
		t.Errorf("version 1 stat read as %+v", old)
	}
	b, _ := json.Marshal(DescribeStat([]float64{1, 2, 3}, 0.9))
	if err := json.Unmarshal(b, &cur); err != nil || cur.Confidence != 0.9 || cur.N != 3 || cur.CIHigh <= cur.Mean {
		t.Errorf("current stat read as %+v (%v) from %s", cur, err, b)
	}
}

func TestSweepsLeaveOutSinglePhases(t *testing.T) {
	p := PhaseSummary{Name: "x", Engine: "fio", Status: StatusCompleted, Group: "x", Ops: []OpSummary{{Op: "read", BwBytesPerS: Figure(1)}}}
	failed := p
	failed.Status, failed.Point = StatusFailed, []KV{{"bs", "4k"}}
	if got := Sweeps([]PhaseSummary{p, failed}, SweepOptions{}); len(got) != 0 {
		t.Errorf("a lone phase and a failed one made sweeps: %+v", got)
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
