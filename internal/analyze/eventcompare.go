package analyze

import (
	"fmt"
	"math"
	"time"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/stats"
)

// EventComparison is one operation of a phase during one event's window,
// against the same window (the same seconds from the phase's start) of
// the same phase of the other run: the phase healthy and degraded.
type EventComparison struct {
	Phase string `json:"phase"`
	Event string `json:"event"`
	// Degraded names the run whose phase had the event (Comparison's
	// Before or After); the other is the healthy one.
	Degraded string `json:"degraded"`
	Op       string `json:"op"`
	// Unit is "MiB/s" or "ops/s".
	Unit string `json:"unit"`
	// FromS and ToS bound the window in seconds from the phase's start:
	// the seconds from the event's effect to its recovery
	// (model.EventImpact), or to the next event's effect (the phase's end
	// when none) when it recovered after it, never, or never fell, that
	// the event covered at least half of (coveredSeconds); a pause's
	// window lasts at least as long as the pause.
	FromS float64 `json:"from_s"`
	ToS   float64 `json:"to_s"`
	// Healthy and During are the mean per-second figures in the window.
	Healthy float64 `json:"healthy"`
	During  float64 `json:"during"`
	// RelPct is During's change from Healthy in percent.
	RelPct float64 `json:"rel_pct"`
	// Verdict is slower, faster, within noise or untested (as Figure's):
	// the window's seconds are tested against every second of the healthy
	// phase (its noise). Method names the test and P is its p-value.
	Verdict string  `json:"verdict"`
	Method  string  `json:"method"`
	P       float64 `json:"p,omitempty"`
}

// compareEvents compares, for every event of the after side's phases (or
// of the before side's, when the after side has none), the event's
// window with the same window of the other side's phase.
func compareEvents(before, after []PhaseData, names [2]string, o CompareOptions) []EventComparison {
	ka, ma := groupPhases(before)
	_, mb := groupPhases(after)
	var out []EventComparison
	for _, k := range ka {
		pb, ok := mb[k]
		if !ok {
			continue
		}
		a, b := ma[k][0], pb[0]
		switch {
		case len(b.Summary.Events) > 0:
			out = append(out, eventWindows(k, a, b, names[1], o)...)
		case len(a.Summary.Events) > 0:
			out = append(out, eventWindows(k, b, a, names[0], o)...)
		}
	}
	return out
}

// eventWindows compares the windows of degraded's events with healthy's
// same seconds; the change is told from healthy to during, whichever
// side of the comparison each is.
func eventWindows(phase string, healthy, degraded PhaseData, name string, o CompareOptions) []EventComparison {
	var out []EventComparison
	evs := EventImpacts(degraded.Hosts, degraded.Summary.Events)
	t0d, t0h := PhaseStart(degraded.Hosts), PhaseStart(healthy.Hosts)
	sd, errD := SecondsOf(degraded.Hosts, t0d, time.Second, nil)
	sh, errH := SecondsOf(healthy.Hosts, t0h, time.Second, nil)
	if errD != nil || errH != nil || t0d == 0 || t0h == 0 {
		return nil
	}
	wins, _ := windowsOf(evs)
	for i, e := range evs {
		for _, im := range e.Impact {
			from := float64(wins[i].at-t0d) / 1e9
			to := math.Inf(1)
			if wins[i].end != math.MaxInt64 {
				to = float64(wins[i].end-t0d) / 1e9
			}
			if im.RecoverS != nil {
				to = math.Min(to, from+*im.RecoverS)
			}
			if e.Action == model.EventPause && e.End != nil {
				to = math.Max(to, float64(e.End.UnixNano()-t0d)/1e9)
			}
			first, last := coveredSeconds(from, to)
			ec := EventComparison{Phase: phase, Event: e.Name, Degraded: name, Op: im.Op, Unit: im.Unit, FromS: first}
			xd, endD := windowFigures(sd, im.Op, im.Unit, first, last)
			xh, _ := windowFigures(sh, im.Op, im.Unit, first, last)
			ec.ToS = endD
			if len(xd) == 0 || len(xh) == 0 {
				continue
			}
			ec.Healthy, ec.During = stats.Describe(xh).Mean, stats.Describe(xd).Mean
			if ec.Healthy != 0 {
				ec.RelPct = 100 * (ec.During - ec.Healthy) / ec.Healthy
			}
			// The noise is the healthy phase's: every one of its seconds,
			// of which the window's few are a draw when the event
			// changed nothing.
			all, _ := windowFigures(sh, im.Op, im.Unit, 0, math.Inf(1))
			w := stats.WelchTest(all, xd)
			ec.Method = fmt.Sprintf("Welch t-test of the window's %d s against the healthy phase's %d s", len(xd), len(all))
			if !w.OK {
				ec.Method = fmt.Sprintf("too few seconds to test (%d during, %d healthy; 2 each needed)", len(xd), len(all))
			}
			ec.P = w.P
			ec.Verdict = verdict(w.OK, w.P < o.alpha(), ec.RelPct, true, o.ThresholdPct)
			out = append(out, ec)
		}
	}
	return out
}

// coveredSeconds bounds the seconds (by their start, [first, last)) that
// an event from from to to (seconds from the phase's start) covered at
// least half of, and at least the second it began in: a second it only
// grazed is mostly healthy and would hide what it did.
func coveredSeconds(from, to float64) (first, last float64) {
	first, last = math.Floor(from+0.5), to-0.5
	if last <= first {
		return math.Floor(from), to
	}
	return first, last
}

// windowFigures is op's per-second figure in unit for the seconds starting in
// [from, to) from the phase's start, and where the last one ends.
func windowFigures(secs []OpSeconds, op, unit string, from, to float64) ([]float64, float64) {
	var out []float64
	end := from
	for _, os := range secs {
		if os.Op != op {
			continue
		}
		for _, s := range os.Seconds {
			x := float64(s.Index)
			if x < from || x >= to {
				continue
			}
			v := s.OpsPerS
			if unit == "MiB/s" {
				v = s.BytesPerS / (1 << 20)
			}
			out = append(out, v)
			end = x + 1
		}
	}
	return out, end
}
