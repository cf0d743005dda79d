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
