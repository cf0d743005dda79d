package stats

import (
	"math"
	"math/rand/v2"
)

// MinBlocks is the fewest whole blocks a block bootstrap works with: fewer
// independent stretches of a run than this say too little about its noise.
const MinBlocks = 8

// Autocorrelation is the sample autocorrelation of xs at lag k (0 when xs
// does not vary or k is out of range).
func Autocorrelation(xs []float64, k int) float64 {
	n := len(xs)
	if k < 0 || k >= n {
		return 0
	}
	m := Describe(xs).Mean
	var num, den float64
	for i, x := range xs {
		d := x - m
		den += d * d
		if i+k < n {
			num += d * (xs[i+k] - m)
		}
	}
	if den == 0 {
		return 0
	}
	return num / den
}

// BlockLength chooses the block length of a block bootstrap of the series
// xs (one value per second) for a test, where a standard error that is too
// small calls noise a change. A block bootstrap misses the covariance
// between values in different blocks: its variance of a mean falls short
// by about G/L of the long-run variance V, where G = Σ|k|·γ(k) and
// V = Σγ(k) over all lags k (Künsch, 1989). The length is the one that
// keeps that shortfall at 10%: L = 10·G/V, with G and V from the sample
// autocovariances in Politis and White's (2004) flat-top window, whose
// width is twice the lag m after which five autocorrelations in a row lie
// within 2·√(log10(n)/n). L is at least ⌈n^(1/3)⌉ (the usual order for n
// values) and at most n/MinBlocks; ok is false when n is too short for
// MinBlocks blocks of two values.
func BlockLength(xs []float64) (l int, ok bool) {
	n := len(xs)
	if n < 2*MinBlocks {
		return 0, false
	}
	floor := int(math.Ceil(math.Cbrt(float64(n))))
	mean := Describe(xs).Mean
	acov := func(k int) float64 {
		var c float64
		for i := 0; i+k < n; i++ {
			c += (xs[i] - mean) * (xs[i+k] - mean)
		}
		return c / float64(n)
	}
	g0 := acov(0)
	if g0 == 0 {
		return min(floor, n/MinBlocks), true
	}
	bound := 2 * math.Sqrt(math.Log10(float64(n))/float64(n))
	const run = 5
	m, quiet := 0, 0
	var gam []float64 // gam[k-1] = γ(k)
	for k := 1; k < n/2 && quiet < run; k++ {
		g := acov(k)
		gam = append(gam, g)
		if math.Abs(g/g0) < bound {
			quiet++
			continue
		}
		m, quiet = k, 0
	}
	width := 2 * max(m, 1)
	v, g := g0, 0.0
	for k := 1; k <= width; k++ {
		if k > len(gam) {
			gam = append(gam, acov(k))
		}
		lam := 1.0 // the flat top
		if r := float64(k) / float64(width); r > 0.5 {
			lam = 2 * (1 - r)
		}
		v += 2 * lam * gam[k-1]
		g += 2 * lam * float64(k) * gam[k-1]
	}
	l = floor
	if v > 0 && g > 0 {
		l = max(l, int(math.Ceil(10*g/v)))
	}
	return min(l, n/MinBlocks), true
}

// BlockBootstrap is a circular block bootstrap (Politis and Romano, 1992)
// of a series of N values: each resample joins ⌈N/L⌉ blocks of L
// consecutive values, starts drawn uniformly, wrapping past the end, cut
// to N values. Resamples keep the dependence within a block, so the spread
// of a statistic over them reflects a run whose seconds are not
// independent. Seed fixes the draws, so a result is reproducible.
type BlockBootstrap struct {
	N, L, B int
	Seed    uint64
}

// Blocks is the number of whole blocks of length L in N values: the
// degrees of freedom that a t quantile on a bootstrap standard error gets
// (less one), as for batch means.
func (bb BlockBootstrap) Blocks() int {
	if bb.L <= 0 {
		return 0
	}
	return bb.N / bb.L
}

// Replicates returns B values of a statistic, each computed by stat on one
// resample, which it is given as the starts of its blocks: every block
// covers l values from its start (wrapping past the end, modulo N), except
// the last, which covers last values. starts is reused between calls.
func (bb BlockBootstrap) Replicates(stat func(starts []int, l, last int) float64) []float64 {
	if bb.N <= 0 || bb.L <= 0 || bb.B <= 0 {
		return nil
	}
	l := min(bb.L, bb.N)
	k := (bb.N + l - 1) / l
	last := bb.N - (k-1)*l
	rng := rand.New(rand.NewPCG(bb.Seed, 0x5eed_b10c))
	starts := make([]int, k)
	out := make([]float64, bb.B)
	for b := range out {
		for i := range starts {
			starts[i] = rng.IntN(bb.N)
		}
		out[b] = stat(starts, l, last)
	}
	return out
}

// Spans calls fn with the half-open ranges [from, to) of 0..N-1 that a
// block of length l starting at start covers: one range, or two when it
// wraps past the end.
func Spans(n, start, l int, fn func(from, to int)) {
	if end := start + l; end <= n {
		fn(start, end)
		return
	}
	fn(start, n)
	fn(0, start+l-n)
}
