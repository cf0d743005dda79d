package analyze

import (
	"math"
	"sort"

	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/stats"
)

// BootstrapResamples is how many resamples a block bootstrap of a latency
// figure draws per run: enough for a standard error within a few percent.
const BootstrapResamples = 500

// latRun is one run's seconds of one operation, hosts added, ready to be
// resampled: second t's histogram, operation count and latency sum.
type latRun struct {
	bins []record.Bins
	n    []uint64
	sum  []float64
	// all is every second's histogram added.
	all record.Bins
}

// latRunOf takes an operation's seconds; a second with no operation (a
// stall) stays in, empty, so blocks keep their length in time.
func latRunOf(o OpSeconds) latRun {
	var r latRun
	all := map[int64]uint64{}
	for _, s := range o.Seconds {
		r.bins = append(r.bins, s.Bins)
		r.n = append(r.n, s.LatN)
		r.sum = append(r.sum, s.SumNs)
		for _, b := range s.Bins {
			all[b.V] += b.N
		}
	}
	r.all = record.FromMap(all)
	return r
}

// latEstimate is a block bootstrap of one run's latency figure: the figure
// from all its seconds, and the standard error of its logarithm.
type latEstimate struct {
	value float64
	se    float64 // of ln(value)
	bb    stats.BlockBootstrap
}

// interval is the figure's interval on the log scale at the given
// confidence: ln(value) ± t·se, t with one degree of freedom less than the
// run's whole blocks, as for batch means.
func (e latEstimate) interval(confidence float64) (lo, hi float64) {
	t := stats.TwoSidedT(confidence, float64(e.bb.Blocks()-1))
	l := math.Log(e.value)
	return l - t*e.se, l + t*e.se
}

// bootstrapLatency estimates a latency figure of a run and its standard
// error by a circular block bootstrap over seconds: pct is the percentile
// (0 for the mean). Each resample joins blocks of seconds, adds their
// histograms, and takes the percentile (or mean) of the sum, so the
// figure is the one the run's merged histogram gives. The block length
// comes from the autocorrelation of the seconds' contributions to the
// figure (stats.BlockLength). ok is false when the run is too short or
// recorded no latency.
func bootstrapLatency(r latRun, pct float64, seed uint64) (latEstimate, bool) {
	n := len(r.bins)
	var total uint64
	var sum float64
	for i := range r.n {
		total += r.n[i]
		sum += r.sum[i]
	}
	if n < 2*stats.MinBlocks || total == 0 {
		return latEstimate{}, false
	}
	// u[t] is second t's part in the figure's error: for a percentile q,
	// the operations at or below q less the share p of all (a quantile's
	// error follows that of the distribution function at q); for the
	// mean, the latency in excess of the mean.
	u := make([]float64, n)
	var value float64
	if pct == 0 {
		value = sum / float64(total)
		for t := range u {
			u[t] = r.sum[t] - value*float64(r.n[t])
		}
	} else {
		q := r.all.Percentile(pct)
		value = float64(q)
		for t, b := range r.bins {
			var at uint64
			for _, x := range b {
				if x.V > q {
					break
				}
				at += x.N
			}
			u[t] = float64(at) - pct/100*float64(r.n[t])
		}
	}
	l, ok := stats.BlockLength(u)
	if !ok || value <= 0 {
		return latEstimate{}, false
	}
	bb := stats.BlockBootstrap{N: n, L: l, B: BootstrapResamples, Seed: seed}
	var reps []float64
	if pct == 0 {
		reps = bb.Replicates(meanOfBlocks(r))
	} else {
		reps = bb.Replicates(percentileOfBlocks(r, pct))
	}
	logs := make([]float64, 0, len(reps))
	for _, v := range reps {
		if v > 0 {
			logs = append(logs, math.Log(v))
		}
	}
	if len(logs) < len(reps)/2 {
		return latEstimate{}, false // most resamples held no operation
	}
	return latEstimate{value: value, se: stats.Describe(logs).Stddev, bb: bb}, true
}

// meanOfBlocks is the mean latency of a resample, from running sums of
// operations and latency over the seconds.
func meanOfBlocks(r latRun) func(starts []int, l, last int) float64 {
	n := len(r.n)
	cn := make([]float64, n+1)
	cs := make([]float64, n+1)
	for i := range n {
		cn[i+1] = cn[i] + float64(r.n[i])
		cs[i+1] = cs[i] + r.sum[i]
	}
	return func(starts []int, l, last int) float64 {
		var sn, ss float64
		add := func(from, to int) {
			sn += cn[to] - cn[from]
			ss += cs[to] - cs[from]
		}
		for i, s := range starts {
			stats.Spans(n, s, blockOf(i, len(starts), l, last), add)
		}
		if sn == 0 {
			return 0
		}
		return ss / sn
	}
}

// blockOf is the length of block i of k: l, or last for the last one.
func blockOf(i, k, l, last int) int {
	if i == k-1 {
		return last
	}
	return l
}

// percentileOfBlocks is the percentile of a resample's merged histogram.
// The percentile of a sum of histograms lies between the smallest and the
// largest percentile of the parts, so only the bins in that window matter.
// cum holds, for every second t and window bin j, the operations at or
// below bin j in seconds [0, t) (all below the window included), so a
// block's count up to a bin is one subtraction, and the percentile is
// found by bisection over the window.
func percentileOfBlocks(r latRun, pct float64) func(starts []int, l, last int) float64 {
	n := len(r.bins)
	lo, hi := int64(math.MaxInt64), int64(0)
	for _, b := range r.bins {
		if len(b) == 0 {
			continue
		}
		q := b.Percentile(pct)
		lo, hi = min(lo, q), max(hi, q)
	}
	// The window's values, ascending: every bin value between lo and hi.
	var vals []int64
	for _, x := range r.all {
		if x.V >= lo && x.V <= hi {
			vals = append(vals, x.V)
		}
	}
	w := len(vals)
	cum := make([]uint64, (n+1)*w)
	total := make([]uint64, n+1)
	row := make([]uint64, w)
	for t, bins := range r.bins {
		clear(row)
		var below uint64
		total[t+1] = total[t]
		j := 0 // bins and vals are both ascending: walk them together
		for _, x := range bins {
			total[t+1] += x.N
			switch {
			case x.V < lo:
				below += x.N
			case x.V <= hi:
				for vals[j] < x.V {
					j++
				}
				row[j] += x.N
			}
		}
		prev, next := cum[t*w:(t+1)*w], cum[(t+1)*w:(t+2)*w]
		run := below
		for j := range row {
			run += row[j]
			next[j] = prev[j] + run
		}
	}
	var spans [][2]int
	return func(starts []int, l, last int) float64 {
		spans = spans[:0]
		var tot uint64
		for i, s := range starts {
			stats.Spans(n, s, blockOf(i, len(starts), l, last), func(from, to int) {
				spans = append(spans, [2]int{from, to})
				tot += total[to] - total[from]
			})
		}
		if tot == 0 || w == 0 {
			return 0
		}
		// The rule of record.Bins.Percentile: the first bin at which the
		// cumulative count reaches p% of the total.
		want := pct / 100 * float64(tot)
		upTo := func(j int) uint64 {
			var c uint64
			for _, sp := range spans {
				c += cum[sp[1]*w+j] - cum[sp[0]*w+j]
			}
			return c
		}
		j := sort.Search(w, func(j int) bool { return float64(upTo(j)) >= want })
		return float64(vals[min(j, w-1)])
	}
}
