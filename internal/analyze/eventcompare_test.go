package analyze

import (
	"testing"
	"time"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/results"
)

// phaseOf is a one-host phase of 8 seconds of GET at 100 op/s of 4 KiB,
// with the seconds in zero at no operations.
func phaseOf(t0 time.Time, zero ...int) PhaseData {
	h := &model.HostResult{Host: "h"}
	for s := range 8 {
		n := uint64(100)
		for _, z := range zero {
			if s == z {
				n = 0
			}
		}
		start := t0.Add(time.Duration(s) * time.Second).UnixNano()
		h.Series = append(h.Series, record.Second{StartNs: start, EndNs: start + int64(time.Second), Op: "GET", Ops: n, Bytes: n << 12})
	}
	h.Ops = []record.OpStats{{Op: "GET", Ops: 600, Bytes: 600 << 12, StartNs: t0.UnixNano(), EndNs: t0.Add(8 * time.Second).UnixNano()}}
	return PhaseData{Summary: results.PhaseSummary{Name: "get"}, Hosts: []*model.HostResult{h}}
}

// An event's window holds the seconds the event covered at least half of:
// a stop that took effect 50 ms before second 2 (a loaded machine runs
// the event a little early on the phase's clock), its server continued
// by the next event at 4 s, is seconds 2-4, not 1-4, whose healthy second
// 1 made the stop's 2 s of nothing "within noise"
// (TestEventStopsRealGateway under make test's load).
func TestEventWindowSecondsMostlyCovered(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	healthy := phaseOf(t0.Add(-time.Hour))
	degraded := phaseOf(t0, 2, 3)
	start, cont := t0.Add(1950*time.Millisecond), t0.Add(4*time.Second)
	degraded.Summary.Events = []model.PhaseEvent{{Name: "stop gateway", Start: &start, End: &start}, {Name: "continue gateway", Start: &cont, End: &cont}}
	out := eventWindows("get", healthy, degraded, "after", CompareOptions{})
	if len(out) == 0 {
		t.Fatal("no window compared")
	}
	ec := out[0]
	if ec.FromS != 2 || ec.ToS != 4 {
		t.Errorf("window seconds %g-%g, want 2-4", ec.FromS, ec.ToS)
	}
	if ec.During != 0 || ec.Verdict != "slower" {
		t.Errorf("during %g MiB/s (want 0), verdict %q (want slower): %+v", ec.During, ec.Verdict, ec)
	}
}
