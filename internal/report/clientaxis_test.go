package report

import (
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/analyze"
	"github.com/storbench/storbench/internal/model"
)

// A host samples itself from a second before the phase's first operation
// to past its tool's exit: its client charts draw the phase's seconds
// only, on the axis of the phase's other charts. Before, the CPU chart of
// a 5-s phase ran to 7 s beside a throughput chart that ended at 5.
func TestClientChartsOnThePhaseAxis(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC).UnixNano()
	ax := timeAxis{t0: t0, seg: time.Second, end: 4} // points at 0..4 s
	s := &model.HostSamples{StartNs: t0 - int64(time.Second)}
	for i := 1; i <= 9; i++ { // seconds -1..7
		s.TS = append(s.TS, float64(i))
		s.UsedPct = append(s.UsedPct, float64(10*i))
	}
	pd := analyze.PhaseData{Hosts: []*model.HostResult{{Host: "h", Client: &model.ClientLoad{Samples: s}}}}
	charts := clientCharts(pd, ax)
	if len(charts) != 1 {
		t.Fatalf("%d client charts, want the CPU one", len(charts))
	}
	var got []string
	for _, m := range regexp.MustCompile(`class="pt"[^>]* data-v="([0-9.]+)"`).FindAllStringSubmatch(string(charts[0]), -1) {
		got = append(got, m[1])
	}
	if want := []string{"20", "30", "40", "50", "60"}; !slices.Equal(got, want) {
		t.Errorf("the CPU chart draws %v, want the phase's seconds 0-4: %v", got, want)
	}
}
