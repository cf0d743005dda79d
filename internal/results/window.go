package results

import (
	"math"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
)

// Window is a span of time in Unix nanoseconds, with its length in seconds.
type Window struct {
	StartNs   int64   `json:"start_ns"`
	EndNs     int64   `json:"end_ns"`
	DurationS float64 `json:"duration_s"`
}

// CommonWindow finds the window in which every host was running, from their
// per-second series (the latest first interval's start to the earliest last
// interval's end), and what each operation did inside it across hosts
// (bytes, ops), intervals cut by the window counted in proportion. It
// returns nil when a host has no series or the hosts never ran together.
func CommonWindow(hosts []*model.HostResult) (*Window, map[string][2]float64) {
	var start, end int64
	n := 0
	for _, h := range hosts {
		if h == nil {
			continue
		}
		if len(h.Series) == 0 {
			return nil, nil
		}
		lo, hi := h.Series[0].StartNs, h.Series[0].EndNs
		for _, s := range h.Series {
			lo, hi = min(lo, s.StartNs), max(hi, s.EndNs)
		}
		if n == 0 {
			start, end = lo, hi
		} else {
			start, end = max(start, lo), min(end, hi)
		}
		n++
	}
	if n == 0 || end <= start {
		return nil, nil
	}
	sums := map[string][2]float64{}
	for _, h := range hosts {
		if h == nil {
			continue
		}
		for _, s := range h.Series {
			if s.EndNs <= s.StartNs {
				continue
			}
			ov := min(s.EndNs, end) - max(s.StartNs, start)
			if ov <= 0 {
				continue
			}
			f := float64(ov) / float64(s.EndNs-s.StartNs)
			v := sums[s.Op]
			sums[s.Op] = [2]float64{v[0] + f*float64(s.Bytes), v[1] + f*float64(s.Ops)}
		}
	}
	return &Window{StartNs: start, EndNs: end, DurationS: float64(end-start) / 1e9}, sums
}

// CutSeries returns the intervals of a series inside w, those that straddle
// its edges cut to it with their counts in proportion.
func CutSeries(series []record.Second, w Window) []record.Second {
	var kept []record.Second
	for _, s := range series {
		ov := min(s.EndNs, w.EndNs) - max(s.StartNs, w.StartNs)
		if ov <= 0 || s.EndNs <= s.StartNs {
			continue
		}
		fr := float64(ov) / float64(s.EndNs-s.StartNs)
		c := s
		c.StartNs, c.EndNs = max(s.StartNs, w.StartNs), min(s.EndNs, w.EndNs)
		c.Ops = uint64(math.Round(fr * float64(s.Ops)))
		c.Bytes = uint64(math.Round(fr * float64(s.Bytes)))
		c.Errors = uint64(math.Round(fr * float64(s.Errors)))
		kept = append(kept, c)
	}
	return kept
}

// The rules a total's throughput follows across hosts (OpSummary.Rule).
const (
	// RuleFirstStartLastEnd is IOR's and mdtest's rule: all bytes and
	// operations of every host over the time from the first host's start
	// to the last host's end. Never above the sum of the hosts' rates,
	// never below the slowest host's share of it.
	RuleFirstStartLastEnd = "first_start_to_last_end"
	// RuleEngine is the engine's own figure for the one host of the phase
	// (fio's bw_bytes and iops).
	RuleEngine = "engine"
	// RuleCommonWindow is everything done inside the time in which every
	// host ran, over that time (warp's rule; the phase's Window).
	RuleCommonWindow = "common_window"
	// RuleMdtest is mdtest's per-iteration rate: each iteration's items of
	// all hosts over the time from its common start to the end of the
	// slowest host (OpSummary.Rate).
	RuleMdtest = "mdtest"
	// RuleHostWindow is an operation's count over its own window, on a
	// host that ran alone (the native engines' per-host figure).
	RuleHostWindow = "host_window"
)

// DoneFigure is a stonewall figure: what all hosts had done by a moment,
// over the time from the first host's start to it.
type DoneFigure struct {
	// DurationS is the time from the first host's start, in seconds.
	DurationS float64 `json:"duration_s"`
	// Bytes and Ops are what every host had done by then; a host still
	// running counts at its own average rate over its window.
	Bytes float64 `json:"bytes"`
	Ops   float64 `json:"ops"`
	// BwBytesPerS is absent for an operation that moves no bytes.
	BwBytesPerS *float64 `json:"bw_bytes_per_s,omitempty"`
	OpsPerS     *float64 `json:"ops_per_s,omitempty"`
}

// stonewall computes operation op's stonewall figures across hosts, as
// IOR and elbencho print them beside the total: "first done" is what every
// host had done when the first host finished, "last done" what they had
// done when the last one did (all of it), each over the time from the first
// host's start. What a host had done by a moment inside its own window is
// taken at its average rate over that window. Both are nil when no host
// has a window for op.
func stonewall(hosts []*model.HostResult, op string, moved bool) (first, last *DoneFigure) {
	type win struct {
		start, end int64
		bytes, ops float64
	}
	var ws []win
	var t0, firstEnd, lastEnd int64
	for _, h := range hosts {
		if h == nil {
			continue
		}
		for _, o := range h.Ops {
			if o.Op != op || o.EndNs <= o.StartNs {
				continue
			}
			ws = append(ws, win{o.StartNs, o.EndNs, float64(o.Bytes), float64(o.Ops)})
			if len(ws) == 1 {
				t0, firstEnd, lastEnd = o.StartNs, o.EndNs, o.EndNs
			}
			t0, firstEnd, lastEnd = min(t0, o.StartNs), min(firstEnd, o.EndNs), max(lastEnd, o.EndNs)
		}
	}
	if len(ws) == 0 {
		return nil, nil
	}
	at := func(t int64) *DoneFigure {
		f := &DoneFigure{DurationS: float64(t-t0) / 1e9}
		for _, w := range ws {
			frac := math.Min(math.Max(float64(t-w.start)/float64(w.end-w.start), 0), 1)
			f.Bytes += frac * w.bytes
			f.Ops += frac * w.ops
		}
		if f.DurationS > 0 {
			f.OpsPerS = Figure(f.Ops / f.DurationS)
			if moved {
				f.BwBytesPerS = Figure(f.Bytes / f.DurationS)
			}
		}
		return f
	}
	return at(firstEnd), at(lastEnd)
}
