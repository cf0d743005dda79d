// Package record holds what storbench measures about operations: latency
// histograms that merge exactly across workers and hosts, summary statistics
// that combine without loss, and the per-worker Recorder used on the hot path.
package record

import (
	"math"
	"sort"
)

// Bin is one bucket of a latency histogram: V is the bucket's representative
// value in nanoseconds (the value a percentile falling in it reports) and N the
// number of operations in it.
//
// fio's json+ "bins" and an HdrHistogram both reduce to a sorted list of bins.
// Two histograms with the same bucket scheme merge exactly by adding counts of
// equal V, which is how storbench gets true cluster percentiles.
type Bin struct {
	V int64  `json:"v"`
	N uint64 `json:"n"`
}

// Bins is a sparse latency histogram sorted by V ascending, with no zero counts.
type Bins []Bin

// Total returns the number of operations in the histogram.
func (b Bins) Total() uint64 {
	var n uint64
	for _, x := range b {
		n += x.N
	}
	return n
}

// Percentile returns the latency (ns) at percentile p (0 < p <= 100): the value
// of the first bin at which the cumulative count reaches p/100 of the total.
// This is fio's own rule (stat.c calc_clat_percentiles), so a single host's
// figures equal fio's "percentile" map exactly. It returns 0 for no data.
func (b Bins) Percentile(p float64) int64 {
	total := b.Total()
	if total == 0 {
		return 0
	}
	want := p / 100 * float64(total)
	var cum uint64
	for _, x := range b {
		cum += x.N
		if float64(cum) >= want {
			return x.V
		}
	}
	return b[len(b)-1].V
}

// Merge returns the sum of two histograms with the same bucket scheme. Neither
// input is modified.
func Merge(a, b Bins) Bins {
	out := make(Bins, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i].V < b[j].V:
			out = append(out, a[i])
			i++
		case a[i].V > b[j].V:
			out = append(out, b[j])
			j++
		default:
			out = append(out, Bin{V: a[i].V, N: a[i].N + b[j].N})
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// FromMap builds Bins from a value->count map (fio's json+ "bins" object after
// its keys are parsed), dropping zero counts.
func FromMap(m map[int64]uint64) Bins {
	out := make(Bins, 0, len(m))
	for v, n := range m {
		if n > 0 {
			out = append(out, Bin{V: v, N: n})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].V < out[j].V })
	return out
}

// LatStats are exact summary statistics of a set of latencies in nanoseconds.
// They combine across workers and hosts without loss (Chan et al.'s parallel
// variance), unlike percentiles, which need the bins.
type LatStats struct {
	N    uint64  `json:"n"`
	Min  int64   `json:"min_ns"`
	Max  int64   `json:"max_ns"`
	Mean float64 `json:"mean_ns"`
	// M2 is the sum of squared deviations from the mean (ns²).
	M2 float64 `json:"m2"`
}

// StatsFromMoments builds LatStats from a count, mean and sample standard
// deviation, as fio reports them.
func StatsFromMoments(n uint64, min, max int64, mean, stddev float64) LatStats {
	s := LatStats{N: n, Min: min, Max: max, Mean: mean}
	if n > 1 {
		s.M2 = stddev * stddev * float64(n-1)
	}
	return s
}

// Stddev returns the sample standard deviation in nanoseconds (0 for N < 2).
func (s LatStats) Stddev() float64 {
	if s.N < 2 {
		return 0
	}
	return math.Sqrt(s.M2 / float64(s.N-1))
}

// Combine returns the statistics of the union of the two sets.
func (s LatStats) Combine(o LatStats) LatStats {
	if s.N == 0 {
		return o
	}
	if o.N == 0 {
		return s
	}
	n := s.N + o.N
	d := o.Mean - s.Mean
	out := LatStats{
		N:    n,
		Min:  min(s.Min, o.Min),
		Max:  max(s.Max, o.Max),
		Mean: s.Mean + d*float64(o.N)/float64(n),
		M2:   s.M2 + o.M2 + d*d*float64(s.N)*float64(o.N)/float64(n),
	}
	return out
}

// Hist is a latency distribution: exact moments plus the bins percentiles come
// from.
type Hist struct {
	Stats LatStats `json:"stats"`
	Bins  Bins     `json:"bins"`
}

// Combine returns the merged distribution of h and o.
func (h Hist) Combine(o Hist) Hist {
	return Hist{Stats: h.Stats.Combine(o.Stats), Bins: Merge(h.Bins, o.Bins)}
}
