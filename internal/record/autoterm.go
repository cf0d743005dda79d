package record

import "time"

// AutoTerm decides when throughput is stable, as warp documents its
// --autoterm: the series so far is downsampled to 25 points, and the run is
// stable when the last 7 lie within Pct percent of their mean and span at
// least MinDur. The metric is bytes per second when Bytes, ops/s otherwise.
// The s3 engine applies it to one host; the controller to the total of all.
type AutoTerm struct {
	Pct    float64
	MinDur time.Duration
	Bytes  bool
}

const (
	termPoints = 25
	termLast   = 7
)

// Stable reports whether the series (all operations, in time order) is
// stable.
func (a AutoTerm) Stable(series []Second) bool {
	if len(series) == 0 {
		return false
	}
	first, last := series[0].StartNs, series[len(series)-1].EndNs
	span := last - first
	if span <= 0 || time.Duration(span)*termLast/termPoints < a.MinDur {
		return false
	}
	// Each interval's count is spread over the points it overlaps, in
	// proportion, so points of equal width hold comparable amounts.
	var pts [termPoints]float64
	width := float64(span) / termPoints
	for _, s := range series {
		v := float64(s.Ops)
		if a.Bytes {
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
	return withinPct(pts[termPoints-termLast:], a.Pct)
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
