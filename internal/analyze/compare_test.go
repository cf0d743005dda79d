package analyze

import (
	"math/rand/v2"
	"testing"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/results"
)

// syntheticPhase is one host reading for 60 s: per-second throughput is an
// AR(1) series around mean (autocorrelated, as real ones are) with 5%
// noise, and request latencies are log-normal around latNs.
func syntheticPhase(seed uint64, mean, latNs float64) PhaseData {
	rng := rand.New(rand.NewPCG(seed, 1))
	const start = int64(1_800_000_000e9)
	h := &model.HostResult{Host: "client1"}
	rec := record.NewRecorder([]string{"read"}, false)
	dev := 0.0
	var ops, bytes uint64
	for s := int64(0); s < 60; s++ {
		dev = 0.6*dev + 0.8*rng.NormFloat64()*0.05*mean
		n := uint64(max(mean+dev, 0))
		h.Series = append(h.Series, record.Second{StartNs: start + s*1e9, EndNs: start + (s+1)*1e9, Op: "read", Ops: n, Bytes: n * 4096})
		ops += n
		bytes += n * 4096
	}
	for i := uint64(0); i < ops; i++ {
		rec.Op(0).Record(int64(latNs*(0.8+0.4*rng.Float64())*(1+0.3*rng.ExpFloat64())), 4096)
	}
	st := rec.Stats(0, "read")
	st.Ops, st.Bytes, st.StartNs, st.EndNs = ops, bytes, start, start+60e9
	h.Ops = []record.OpStats{st}
	return PhaseData{Summary: results.BuildPhase("randread", "s3", nil, []*model.HostResult{h}), Hosts: []*model.HostResult{h}}
}

func verdicts(t *testing.T, c *Comparison) map[string]string {
	t.Helper()
	if len(c.Phases) != 1 || len(c.Phases[0].Ops) != 1 {
		t.Fatalf("comparison %+v", c)
	}
	out := map[string]string{}
	for _, f := range c.Phases[0].Ops[0].Figures {
		out[f.Name] = f.Verdict
		t.Logf("%-10s %12.1f -> %12.1f %+6.2f%% %-12s %s p=%.3g", f.Name, f.Before, f.After, f.RelPct, f.Verdict, f.Method, f.P)
	}
	return out
}

func TestCompareSameDistributionIsWithinNoise(t *testing.T) {
	a := syntheticPhase(1, 1000, 1e6)
	b := syntheticPhase(2, 1000, 1e6)
	v := verdicts(t, Compare([]PhaseData{a}, []PhaseData{b}, CompareOptions{ThresholdPct: 5}))
	for _, name := range []string{"throughput", "ops/s", "lat mean", "lat p50", "lat p99"} {
		if v[name] != WithinNoise {
			t.Errorf("%s: %q, want %q for two runs of one distribution", name, v[name], WithinNoise)
		}
	}
}

func TestCompareTenPercentSlower(t *testing.T) {
	a := syntheticPhase(1, 1000, 1e6)
	b := syntheticPhase(2, 900, 1.1e6)
	c := Compare([]PhaseData{a}, []PhaseData{b}, CompareOptions{ThresholdPct: 5})
	v := verdicts(t, c)
	for _, name := range []string{"throughput", "ops/s", "lat mean", "lat p50", "lat p99"} {
		if v[name] != Slower {
			t.Errorf("%s: %q, want %q when B is 10%% slower", name, v[name], Slower)
		}
	}
	if !c.Slower() {
		t.Error("Slower() is false")
	}
	// The same change under a 15% threshold is not called slower.
	v = verdicts(t, Compare([]PhaseData{a}, []PhaseData{b}, CompareOptions{ThresholdPct: 15}))
	if v["throughput"] != WithinNoise {
		t.Errorf("throughput under a 15%% threshold: %q", v["throughput"])
	}
}

func TestCompareShortSeriesIsUntested(t *testing.T) {
	a := syntheticPhase(1, 1000, 1e6)
	b := syntheticPhase(2, 900, 1e6)
	b.Hosts[0].Series = b.Hosts[0].Series[:5]
	v := verdicts(t, Compare([]PhaseData{a}, []PhaseData{b}, CompareOptions{ThresholdPct: 5}))
	if v["throughput"] != Untested {
		t.Errorf("5 seconds of series: %q, want untested", v["throughput"])
	}
}
