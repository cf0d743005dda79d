package analyze

import (
	"fmt"
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

// EventImpacts returns evs with what each event that ran did to every
// operation running on both sides of it (model.EventImpact), from the
// hosts' per-second series, all hosts added. Operations with no full
// second before the event, or none after it, get no impact.
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
	for i := range out {
		out[i].Impact = nil
		if out[i].Start == nil {
			continue
		}
		at := out[i].Start.UnixNano()
		for _, os := range secs {
			if im, ok := impactOf(os, at, t0, moves[os.Op]); ok {
				out[i].Impact = append(out[i].Impact, im)
			}
		}
	}
	return out
}

// impactOf is one operation's dip around an event that started at
// (Unix ns); t0 is the phase's start.
func impactOf(os OpSeconds, at, t0 int64, moves bool) (model.EventImpact, bool) {
	im := model.EventImpact{Op: os.Op, Unit: "ops/s"}
	val := func(s OpSecond) float64 { return s.OpsPerS }
	if moves {
		im.Unit = "MiB/s"
		val = func(s OpSecond) float64 { return s.BytesPerS / (1 << 20) }
	}
	const sec = int64(time.Second)
	var sum float64
	n := 0
	var after []OpSecond
	for _, s := range os.Seconds {
		if s.StartNs+sec <= at {
			sum += val(s)
			n++
			continue
		}
		after = append(after, s)
	}
	if n == 0 || len(after) == 0 {
		return im, false
	}
	im.Before = sum / float64(n)
	thr := RecoverFraction * im.Before
	firstBelow, rec := -1, -1
	for k, s := range after {
		v := val(s)
		if k == 0 || v < im.Lowest {
			im.Lowest, im.LowestAtS = v, float64(s.StartNs-t0)/1e9
		}
		if v < thr {
			im.BelowS++
			if firstBelow < 0 {
				firstBelow = k
			}
			continue
		}
		if firstBelow >= 0 && rec < 0 && holds(after[k:], val, thr) {
			rec = k
		}
	}
	end := len(after)
	switch {
	case firstBelow < 0:
		im.Note = fmt.Sprintf("never under %.0f%% of the figure before", 100*RecoverFraction)
	case rec < 0:
		im.NotRecovered = true
		im.Note = fmt.Sprintf("did not recover to %.0f%% of the figure before by the phase's end", 100*RecoverFraction)
	default:
		r := float64(after[rec].StartNs-at) / 1e9
		im.RecoverS = &r
		end = rec
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
