package analyze

import (
	"testing"
	"time"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
)

// series is one host doing op at the given operations per second, one
// interval a second from t=1 s (in Unix ns), errs failed requests in each.
func series(op string, rates []uint64, errs []uint64) *model.HostResult {
	h := &model.HostResult{Host: "h", Ops: []record.OpStats{{Op: op, StartNs: nsPerS, EndNs: int64(len(rates)+1) * nsPerS}}}
	for i, r := range rates {
		s := record.Second{StartNs: int64(i+1) * nsPerS, EndNs: int64(i+2) * nsPerS, Op: op, Ops: r}
		if i < len(errs) {
			s.Errors = errs[i]
		}
		h.Series = append(h.Series, s)
	}
	return h
}

func at(s float64) *time.Time {
	t := time.Unix(0, nsPerS+int64(s*float64(nsPerS)))
	return &t
}

// Every figure of an event's impact, against a hand-computed case: 100,
// 110, 90 before an event at 3.5 s (mean 100); 70 (the second the event
// started in), 10, 50, 95 after it, then 100 and 105: the lowest is 10 at
// 4 s, three seconds are under 90 (70, 10, 50), the figure is back at 90
// or more at 6 s and stays there three seconds (95, 100, 105): recovered
// 2.5 s after the event; the errors are those from the event's second to
// the recovery (2 + 5 + 1).
func TestEventImpactHandComputed(t *testing.T) {
	h := series("read", []uint64{100, 110, 90, 70, 10, 50, 95, 100, 105}, []uint64{9, 9, 9, 2, 5, 1, 7, 7})
	evs := EventImpacts([]*model.HostResult{h}, []model.PhaseEvent{{Name: "kill", Start: at(3.5)}})
	if len(evs) != 1 || len(evs[0].Impact) != 1 {
		t.Fatalf("impacts: %+v", evs)
	}
	im := evs[0].Impact[0]
	if im.Unit != "ops/s" || im.Before != 100 || im.Lowest != 10 || im.LowestAtS != 4 || im.BelowS != 3 || im.Errors != 8 {
		t.Errorf("got unit %s, before %g, lowest %g at %gs, %gs under 90%%, %d errors; want ops/s, 100, 10 at 4s, 3s, 8",
			im.Unit, im.Before, im.Lowest, im.LowestAtS, im.BelowS, im.Errors)
	}
	if im.RecoverS == nil || *im.RecoverS != 2.5 || im.NotRecovered {
		t.Errorf("recovered after %v s (not recovered: %v), want 2.5", im.RecoverS, im.NotRecovered)
	}
}

// A figure that never comes back by the phase's end has no recovery time
// - absent and said to be absent, never 0 - and the errors count to the
// end; one that never fell under 90% has none either, and says why.
func TestEventImpactRecoveryAbsent(t *testing.T) {
	never := series("read", []uint64{100, 100, 100, 20, 30, 40}, []uint64{0, 0, 0, 4, 4, 4})
	im := EventImpacts([]*model.HostResult{never}, []model.PhaseEvent{{Start: at(3)}})[0].Impact[0]
	if im.RecoverS != nil || !im.NotRecovered || im.Note == "" || im.Errors != 12 || im.BelowS != 3 {
		t.Errorf("never recovered: recover %v, not recovered %v, note %q, %d errors, %gs under", im.RecoverS, im.NotRecovered, im.Note, im.Errors, im.BelowS)
	}
	flat := series("read", []uint64{100, 100, 100, 95, 100, 100}, nil)
	im = EventImpacts([]*model.HostResult{flat}, []model.PhaseEvent{{Start: at(3)}})[0].Impact[0]
	if im.RecoverS != nil || im.NotRecovered || im.Note != "never under 90% of the figure before" || im.BelowS != 0 {
		t.Errorf("no dip: recover %v, not recovered %v, note %q", im.RecoverS, im.NotRecovered, im.Note)
	}
	// An event that did not run, or before a full second of the phase,
	// has no impact at all.
	evs := EventImpacts([]*model.HostResult{flat}, []model.PhaseEvent{{Name: "not run"}, {Name: "early", Start: at(0.5)}})
	if len(evs[0].Impact) != 0 || len(evs[1].Impact) != 0 {
		t.Errorf("impacts without a second before: %+v", evs)
	}
}
