package analyze

import (
	"testing"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
)

// step is a synthetic step of a scale: its rate and p99, with no
// per-second figures (the test falls back to the gain alone).
func step(rate float64, p99 int64) PhaseData {
	return PhaseData{Summary: results.PhaseSummary{Name: "s", Ops: []results.OpSummary{{Op: "read", Ops: 1000, OpsPerS: &rate, Lat: &results.LatencySummary{P99Ns: p99}}}}}
}

// The default rules stop a scale where the rate flattens (a gain under
// 5%) or latency breaks (p99 more than doubled, the rate up less than
// 10%), and let it go on otherwise.
func TestScaleRules(t *testing.T) {
	for _, tc := range []struct {
		name      string
		prev, now PhaseData
		want      string
	}{
		{"rate doubles", step(1000, 1e6), step(2000, 1.1e6), ""},
		{"rate flat", step(1000, 1e6), step(1030, 1.1e6), model.ScaleFlat},
		{"rate down", step(1000, 1e6), step(900, 1e6), model.ScaleFlat},
		{"p99 x3 for 7% more", step(1000, 1e6), step(1070, 3e6), model.ScaleLatency},
		{"p99 x1.5 for 7% more", step(1000, 1e6), step(1070, 1.5e6), ""},
		{"p99 x3 for 20% more", step(1000, 1e6), step(1200, 3e6), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ScaleStop{}
			for _, r := range ScaleRules() {
				if got = r([]PhaseData{tc.prev, tc.now}); got.Kind != "" {
					break
				}
			}
			if got.Kind != tc.want {
				t.Errorf("stop %q (%s), want %q", got.Kind, got.Why, tc.want)
			}
		})
	}
}
