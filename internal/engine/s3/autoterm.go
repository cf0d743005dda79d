package s3

import (
	"time"

	"github.com/storbench/storbench/internal/record"
)

// autoTerm decides when throughput is stable, as warp documents it: the
// series so far is downsampled to 25 points, and the run is stable when the
// last 7 lie within pct percent of their mean and span at least minDur.
// The metric is bytes per second for data benchmarks, ops/s otherwise.
type autoTerm struct {
	pct    float64
	minDur time.Duration
	bytes  bool
}

const (
	termPoints = 25
	termLast   = 7
)

// stable reports whether the series (all operations, in time order) is
// stable.
func (a autoTerm) stable(series []record.Second) bool {
	if len(series) == 0 {
		return false
	}
	first, last := series[0].StartNs, series[len(series)-1].EndNs
	span := last - first
	if span <= 0 || time.Duration(span)*termLast/termPoints < a.minDur {
		return false
	}
	// Each interval's count is spread over the points it overlaps, in
	// proportion, so points of equal width hold comparable amounts.
	var pts [termPoints]float64
	width := float64(span) / termPoints
	for _, s := range series {
		v := float64(s.Ops)
		if a.bytes {
			v = float64(s.Bytes)
		}
		lo, hi := float64(s.StartNs-first), float64(s.EndNs-first)
		if hi <= lo {
			continue
		}
		for i := int(lo / width); i < termPoints && float64(i)*width < hi; i++ {
			a0, a1 := max(lo, float64(i)*width), min(hi, float64(i+1)*width)
			if a1 > a0 {
				pts[i] += v * (a1 - a0) / (hi - lo)
			}
		}
	}
	return withinPct(pts[termPoints-termLast:], a.pct)
}

// withinPct reports whether max-min of xs is within pct percent of their mean.
func withinPct(xs []float64, pct float64) bool {
	lo, hi, sum := xs[0], xs[0], 0.0
	for _, x := range xs {
		lo, hi, sum = min(lo, x), max(hi, x), sum+x
	}
	mean := sum / float64(len(xs))
	if mean <= 0 {
		return false
	}
	return (hi-lo)/mean*100 <= pct
}
