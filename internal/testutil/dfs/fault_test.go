package dfs

import (
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/model"
)

// A recovery later than 1 s after the file system served again is left
// to ServerFault (which runs the phase once more) rather than failing the
// test at once; one within 1 s passes. The figures are a stop at 5 s and
// a return at 10 s, as ServerFault's events do.
func TestCheckDipLeavesALateRecoveryToTheCaller(t *testing.T) {
	phase := time.Date(2026, 11, 29, 2, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return phase.Add(time.Duration(s * float64(time.Second))) }
	evStart, evStartS := at(5), 5.0
	ev := model.PhaseEvent{Start: &evStart, StartS: &evStartS}
	stop, back := Mark{Begin: at(5), End: at(5.01)}, Mark{Begin: at(10), End: at(10.1)}
	for _, c := range []struct {
		recoverS float64 // from the stop
		late     bool
	}{{5.5, false}, {6, false}, {9, true}} {
		r := c.recoverS
		im := model.EventImpact{Op: "write", Unit: "MiB/s", Before: 0.46, Lowest: 0.02, LowestAtS: 7, BelowS: 5, RecoverS: &r}
		late := checkDip(t, ev, im, stop, back)
		if (late != "") != c.late || c.late && !strings.Contains(late, "recovered at 14.00 s") {
			t.Errorf("a recovery %v s after the stop: %q, want late %v", r, late, c.late)
		}
	}
}
