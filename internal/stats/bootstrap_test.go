package stats

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

func ar1(n int, phi float64, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 3))
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = rng.NormFloat64()
		if i > 0 {
			xs[i] += phi * xs[i-1]
		}
	}
	return xs
}

// The block is long where the series remembers, short where it does not:
// independent values get the n^(1/3) floor, an AR(1) with phi 0.8 about
// 10·G/V = 10·(2·0.8/0.2²)/((1+0.8)/(1-0.8)) ≈ 44.
func TestBlockLength(t *testing.T) {
	if l, ok := BlockLength(ar1(2000, 0, 1)); !ok || l < 13 || l > 20 {
		t.Errorf("independent values: block %d (ok %v), want about 13 (the cube root of 2000)", l, ok)
	}
	for seed := uint64(1); seed <= 5; seed++ {
		if l, ok := BlockLength(ar1(2000, 0.8, seed)); !ok || l < 25 || l > 70 {
			t.Errorf("AR(1) 0.8, seed %d: block %d (ok %v), want about 44", seed, l, ok)
		}
	}
	if l, ok := BlockLength(ar1(100, 0.99, 1)); !ok || l != 100/MinBlocks {
		t.Errorf("a series that never forgets: block %d (ok %v), want the cap %d", l, ok, 100/MinBlocks)
	}
	if _, ok := BlockLength(make([]float64, 2*MinBlocks-1)); ok {
		t.Error("too short a series got a block length")
	}
	if l, ok := BlockLength(make([]float64, 64)); !ok || l != 4 {
		t.Errorf("constant series: block %d (ok %v), want 4", l, ok)
	}
}

// Resamples cover N values in blocks of L (the last cut), from a fixed
// seed: the same seed draws the same blocks.
func TestBlockBootstrapDraws(t *testing.T) {
	bb := BlockBootstrap{N: 103, L: 10, B: 50, Seed: 7}
	var first [][]int
	reps := bb.Replicates(func(starts []int, l, last int) float64 {
		if l != 10 || last != 3 || len(starts) != 11 {
			t.Fatalf("blocks %d of %d, last %d", len(starts), l, last)
		}
		covered := 0
		for i, s := range starts {
			if s < 0 || s >= 103 {
				t.Fatalf("start %d", s)
			}
			n := l
			if i == len(starts)-1 {
				n = last
			}
			Spans(103, s, n, func(from, to int) {
				if from < 0 || to > 103 || to <= from {
					t.Fatalf("span [%d, %d)", from, to)
				}
				covered += to - from
			})
		}
		if covered != 103 {
			t.Fatalf("a resample covers %d values, want 103", covered)
		}
		first = append(first, append([]int(nil), starts...))
		return float64(starts[0])
	})
	if len(reps) != 50 {
		t.Fatalf("%d replicates", len(reps))
	}
	again := bb.Replicates(func(starts []int, _, _ int) float64 { return float64(starts[0]) })
	if !reflect.DeepEqual(reps, again) {
		t.Error("the same seed drew other blocks")
	}
}

// On a series that remembers, the bootstrap standard error of the mean
// with the chosen block is close to the true one (which independent
// resampling understates threefold for phi 0.8).
func TestBlockBootstrapStandardError(t *testing.T) {
	const n, phi = 3000, 0.8
	// The mean of n AR(1) values has variance about (1/(1-phi)²)/n.
	truth := 1 / (1 - phi) / math.Sqrt(n)
	var ratios []float64
	for seed := uint64(1); seed <= 10; seed++ {
		xs := ar1(n, phi, seed)
		l, _ := BlockLength(xs)
		cum := make([]float64, n+1)
		for i, x := range xs {
			cum[i+1] = cum[i] + x
		}
		bb := BlockBootstrap{N: n, L: l, B: 400, Seed: seed}
		reps := bb.Replicates(func(starts []int, l, last int) float64 {
			var s float64
			for i, st := range starts {
				k := l
				if i == len(starts)-1 {
					k = last
				}
				Spans(n, st, k, func(from, to int) { s += cum[to] - cum[from] })
			}
			return s / n
		})
		ratios = append(ratios, Describe(reps).Stddev/truth)
	}
	t.Logf("standard error ratios %.2f", ratios)
	if m := Describe(ratios).Mean; m < 0.8 || m > 1.15 {
		t.Errorf("bootstrap standard error is %.2f of the true one on average, want 0.8-1.15 (%.2f)", m, ratios)
	}
}
