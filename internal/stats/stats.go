// Package stats is storbench's one place for statistics: descriptive
// statistics of a sample, Student's t distribution (CDF and quantile for any
// positive degrees of freedom, Welch's fractional ones included), confidence
// intervals of a mean, Welch's unequal-variance t-test, batch means for
// autocorrelated series, and the normal quantile. Sweeps (results) and
// compare (analyze) both call it, so an interval in summary.json and a
// verdict of compare rest on the same arithmetic.
package stats

import "math"

// DefaultConfidence is the confidence level of intervals and tests when the
// user asks for none: 95%.
const DefaultConfidence = 0.95

// Alpha is a test's significance level a, or 1 - DefaultConfidence when a
// is not one (0 or less, 1 or more: not given).
func Alpha(a float64) float64 {
	if a <= 0 || a >= 1 {
		return 1 - DefaultConfidence
	}
	return a
}

// Descriptive is the descriptive statistics of a sample.
type Descriptive struct {
	N    int
	Mean float64
	// Stddev is the sample standard deviation (divisor n-1); 0 for n < 2.
	Stddev float64
	// CoV is the coefficient of variation Stddev/|Mean|; 0 when Mean is 0.
	CoV      float64
	Min, Max float64
}

// Describe computes the descriptive statistics of xs; all zero for none.
func Describe(xs []float64) Descriptive {
	d := Descriptive{N: len(xs)}
	if len(xs) == 0 {
		return d
	}
	d.Min, d.Max = math.Inf(1), math.Inf(-1)
	var sum float64
	for _, x := range xs {
		d.Min, d.Max = math.Min(d.Min, x), math.Max(d.Max, x)
		sum += x
	}
	d.Mean = sum / float64(len(xs))
	if len(xs) > 1 {
		// Two passes: the sum of squared deviations from the mean does not
		// lose the digits that sum(x²) - n·mean² would.
		var ss float64
		for _, x := range xs {
			ss += (x - d.Mean) * (x - d.Mean)
		}
		d.Stddev = math.Sqrt(ss / float64(len(xs)-1))
	}
	if d.Mean != 0 {
		d.CoV = d.Stddev / math.Abs(d.Mean)
	}
	return d
}

// MeanInterval is the two-sided confidence interval of the population mean
// at the given confidence (0.95 for 95%): mean ± t·s/√n with Student's t of
// n-1 degrees of freedom. It is [Mean, Mean] for fewer than two values,
// where no interval can be had.
func (d Descriptive) MeanInterval(confidence float64) (lo, hi float64) {
	if d.N < 2 {
		return d.Mean, d.Mean
	}
	h := TwoSidedT(confidence, float64(d.N-1)) * d.Stddev / math.Sqrt(float64(d.N))
	return d.Mean - h, d.Mean + h
}

// ValidConfidence says whether c is a usable confidence level: strictly
// between 0.5 and 1.
func ValidConfidence(c float64) bool { return c > 0.5 && c < 1 }

// NormalQuantile is the standard normal distribution's quantile: the z with
// P(Z <= z) = p, for 0 < p < 1 (±Inf at 0 and 1). math.Erfcinv makes it
// exact to float64 precision.
func NormalQuantile(p float64) float64 {
	return -math.Sqrt2 * math.Erfcinv(2*p)
}

// BatchMeans averages consecutive non-overlapping blocks of size values
// (a trailing incomplete block is dropped). Per-second throughput samples
// are autocorrelated; means of blocks of a few seconds are close to
// independent, so a t-test on them does not overstate its confidence.
func BatchMeans(xs []float64, size int) []float64 {
	if size <= 1 {
		return append([]float64(nil), xs...)
	}
	out := make([]float64, 0, len(xs)/size)
	for i := 0; i+size <= len(xs); i += size {
		var s float64
		for _, x := range xs[i : i+size] {
			s += x
		}
		out = append(out, s/float64(size))
	}
	return out
}

// BatchSize is the block length used for n per-second samples: 5 seconds
// when there are enough for 8 blocks, shorter for short runs, but never
// fewer than 4 blocks of at least 2 seconds; 0 when n is too small to test.
func BatchSize(n int) int {
	for _, size := range []int{5, 4, 3, 2} {
		if n/size >= 8 || (size == 2 && n/size >= 4) {
			return size
		}
	}
	return 0
}

// OrderStatisticInterval is a distribution-free confidence interval of the
// q-quantile (0 < q < 1) of a population from n independent observations,
// as 1-based ranks of the sorted sample: n·q ∓ z·√(n·q·(1-q)) (the normal
// approximation of the binomial count below the quantile), clamped to
// [1, n].
func OrderStatisticInterval(n, q, z float64) (loRank, hiRank float64) {
	half := z * math.Sqrt(n*q*(1-q))
	return math.Max(1, math.Floor(n*q-half)), math.Min(n, math.Ceil(n*q+half))
}
