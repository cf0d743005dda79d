package analyze

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/storbench/storbench/internal/model"
)

// RecoverFraction is the share of the figure before an event that counts
// as recovered: a second under it is a second of the dip.
const RecoverFraction = 0.9

// recoverRun is how many seconds in a row at RecoverFraction or more
// (fewer when the phase ends first) make a recovery: one good second in
// a dip is not one.
const recoverRun = 3

// EffectAt is when an event's action took effect (Unix ns; 0 when it
// never ran): a pause stops the load at its start; a command or a cache
// drop acts when it has done its work, which storbench knows only as its
// end (a kill that spent 1.8 s finding its pid killed nothing before).
func EffectAt(e model.PhaseEvent) int64 {
	switch {
	case e.Start == nil:
		return 0
	case e.Action == model.EventPause || e.End == nil:
		return e.Start.UnixNano()
	}
	return e.End.UnixNano()
}

// EventImpacts returns evs with what each event that ran did to every
// operation running on both sides of it (model.EventImpact), from the
// hosts' per-second series, all hosts added, on the series' own clock
// (their seconds from the phase's first operation). An event is measured
// from when it took effect (EffectAt) within its own window, until the
// next event began: the dip of the next one is not its own. Only full
// seconds count (a partial second at a phase's edge, when some hosts
// have stopped, is no dip), and the figure before is the median of the
// full seconds before the event that no earlier event disturbed, which a
// few unusually fast seconds do not move. Operations with no such second
// before the event, or none after it, get no impact.
func EventImpacts(hosts []*model.HostResult, evs []model.PhaseEvent) []model.PhaseEvent {
	if len(evs) == 0 {
		return evs
	}
	out := append([]model.PhaseEvent(nil), evs...)
	t0 := PhaseStart(hosts)
	secs, err := SecondsOf(hosts, t0, time.Second, nil)
	if err != nil || t0 == 0 {
		return out
	}
	moves := map[string]bool{}
	for _, h := range hosts {
		for _, o := range h.Ops {
			moves[o.Op] = moves[o.Op] || o.Bytes > 0
		}
	}
	wins, order := windowsOf(out)
	for i := range out {
		out[i].Impact = nil
	}
	for _, os := range secs {
		ev := eventSeconds{os: os, t0: t0, val: figureOf(moves[os.Op])}
		for _, i := range order {
			if im, ok := ev.impact(wins[i], moves[os.Op]); ok {
				out[i].Impact = append(out[i].Impact, im)
			}
		}
	}
	return out
}

// windowsOf are the events' windows, by index (at is 0 for an event that
// did not run), and the indexes of those that ran in the order they took
// effect: each from its effect until the next event began (from then on,
// either may have done what the figures show).
func windowsOf(evs []model.PhaseEvent) ([]eventWindow, []int) {
	wins := make([]eventWindow, len(evs))
	var order []int
	for i := range evs {
		if wins[i].at = EffectAt(evs[i]); wins[i].at != 0 {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return wins[order[a]].at < wins[order[b]].at })
	for _, i := range order {
		wins[i].end = math.MaxInt64
		for _, j := range order {
			if b := evs[j].Start.UnixNano(); b > evs[i].Start.UnixNano() && b < wins[i].end {
				wins[i].end, wins[i].next = b, evs[j].Name
			}
		}
	}
	return wins, order
}

// figureOf is the per-second figure of an operation: MiB/s when it moves
// data, else ops/s.
func figureOf(moves bool) func(OpSecond) float64 {
	if moves {
		return func(s OpSecond) float64 { return s.BytesPerS / (1 << 20) }
	}
	return func(s OpSecond) float64 { return s.OpsPerS }
}

// eventWindow is an event's own time: from when it took effect (at, Unix
// ns) to when the next event began (end; MaxInt64 for none), named next.
type eventWindow struct {
	at, end int64
	next    string
}

// eventSeconds measures the events of one operation, in their order:
// disturbed holds the time each earlier one disturbed (from its effect to
// its recovery, or on), which no later baseline takes.
type eventSeconds struct {
	os        OpSeconds
	t0        int64
	val       func(OpSecond) float64
	disturbed []eventWindow
}

const nsPerSecond = int64(time.Second)

// before is the figure before an event that took effect at at: the median
// of the full seconds that ended by then and that no earlier event
// disturbed (the lower of the middle two of an even count); ok is false
// when there is none.
func (ev *eventSeconds) before(at int64) (float64, bool) {
	var xs []float64
	for _, s := range ev.os.Seconds {
		end := s.StartNs + nsPerSecond
		if !s.Full || end > at || slices.ContainsFunc(ev.disturbed, func(d eventWindow) bool { return end > d.at && s.StartNs < d.end }) {
			continue
		}
		xs = append(xs, ev.val(s))
	}
	if len(xs) == 0 {
		return 0, false
	}
	sort.Float64s(xs)
	return xs[(len(xs)-1)/2], true
}

// impact is the operation's dip in window w: the seconds after the
// effect are the full ones it covers at least half of.
func (ev *eventSeconds) impact(w eventWindow, moves bool) (model.EventImpact, bool) {
	im := model.EventImpact{Op: ev.os.Op, Unit: "ops/s"}
	if moves {
		im.Unit = "MiB/s"
	}
	effect := float64(w.at-ev.t0) / 1e9
	im.EffectS = &effect
	before, ok := ev.before(w.at)
	var after []OpSecond
	for _, s := range ev.os.Seconds {
		if s.Full && s.StartNs >= w.at-nsPerSecond/2 {
			after = append(after, s)
		}
	}
	// Whatever the outcome, this event disturbed the time from its
	// effect on; a recovery found below gives that time its end.
	ev.disturbed = append(ev.disturbed, eventWindow{at: w.at, end: math.MaxInt64})
	if !ok || len(after) == 0 {
		return im, false
	}
	im.Before = before
	thr := RecoverFraction * before
	inWindow := 0
	for inWindow < len(after) && after[inWindow].StartNs < w.end-nsPerSecond/2 {
		inWindow++
	}
	firstBelow, rec := -1, -1
	for k, s := range after[:inWindow] {
		v := ev.val(s)
		if k == 0 || v < im.Lowest {
			im.Lowest, im.LowestAtS = v, float64(s.StartNs-ev.t0)/1e9
		}
		if v < thr {
			im.BelowS++
			if firstBelow < 0 {
				firstBelow = k
			}
		}
	}
	if firstBelow >= 0 {
		// The recovery may come after the next event took effect (a
		// hung brick's writes come back when it is restarted).
		for k := firstBelow + 1; k < len(after); k++ {
			if ev.val(after[k]) >= thr && holds(after[k:], ev.val, thr) {
				rec = k
				break
			}
		}
	}
	end := inWindow
	switch {
	case inWindow == 0:
		return im, false // the next event began within half a second
	case firstBelow < 0:
		im.Note = fmt.Sprintf("never under %.0f%% of the figure before", 100*RecoverFraction)
	case rec < 0:
		im.NotRecovered = true
		im.Note = fmt.Sprintf("did not recover to %.0f%% of the figure before by the phase's end", 100*RecoverFraction)
	default:
		r := float64(after[rec].StartNs-w.at) / 1e9
		im.RecoverS = &r
		ev.disturbed[len(ev.disturbed)-1].end = after[rec].StartNs
		end = min(rec, inWindow)
		if rec >= inWindow {
			im.Note = fmt.Sprintf("after %s began", w.next)
		}
	}
	for _, s := range after[:end] {
		im.Errors += s.Errors
	}
	return im, true
}

// holds says the first recoverRun seconds of ss (all of them, when
// fewer) are at thr or more.
func holds(ss []OpSecond, val func(OpSecond) float64, thr float64) bool {
	for k := 0; k < len(ss) && k < recoverRun; k++ {
		if val(ss[k]) < thr {
			return false
		}
	}
	return true
}
