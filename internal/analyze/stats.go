package analyze

import (
	"math"

	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/results"
)

// Welch is the result of Welch's unequal-variance t-test of two samples.
type Welch struct {
	T  float64 // t statistic of mean(b) - mean(a)
	DF float64 // Welch–Satterthwaite degrees of freedom
	P  float64 // two-sided p-value; 1 when the test cannot be made
	OK bool    // false with fewer than two values in a sample
}

// WelchTest compares the means of a and b.
func WelchTest(a, b []float64) Welch {
	if len(a) < 2 || len(b) < 2 {
		return Welch{P: 1}
	}
	_, _, ma, sa := results.Describe(a)
	_, _, mb, sb := results.Describe(b)
	return WelchMoments(float64(len(a)), ma, sa, float64(len(b)), mb, sb)
}

// WelchMoments is WelchTest from each sample's size, mean and sample
// standard deviation.
func WelchMoments(na, ma, sa, nb, mb, sb float64) Welch {
	if na < 2 || nb < 2 {
		return Welch{P: 1}
	}
	va, vb := sa*sa/na, sb*sb/nb
	if va+vb == 0 {
		// Two constant samples: different means are certainly different.
		if ma == mb {
			return Welch{P: 1, OK: true, DF: na + nb - 2}
		}
		return Welch{T: math.Copysign(math.Inf(1), mb-ma), P: 0, OK: true, DF: na + nb - 2}
	}
	t := (mb - ma) / math.Sqrt(va+vb)
	df := (va + vb) * (va + vb) / (va*va/(na-1) + vb*vb/(nb-1))
	return Welch{T: t, DF: df, P: 2 * studentTail(math.Abs(t), df), OK: true}
}

// studentTail is P(T > t) for Student's t with df degrees of freedom, t >= 0.
func studentTail(t, df float64) float64 {
	if math.IsInf(t, 1) {
		return 0
	}
	return 0.5 * regIncBeta(df/2, 0.5, df/(df+t*t))
}

// regIncBeta is the regularised incomplete beta function I_x(a, b),
// evaluated by its continued fraction (Lentz's method).
func regIncBeta(a, b, x float64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log(1-x))
	// The fraction converges fast for x below the mean; use the symmetry
	// I_x(a,b) = 1 - I_{1-x}(b,a) above it.
	if x > (a+1)/(a+b+2) {
		return 1 - regIncBetaCF(b, a, 1-x, front)
	}
	return regIncBetaCF(a, b, x, front)
}

func regIncBetaCF(a, b, x, front float64) float64 {
	const tiny = 1e-300
	f, c, d := 1.0, 1.0, 0.0
	for i := 0; i <= 300; i++ {
		m := float64(i / 2)
		var num float64
		switch {
		case i == 0:
			num = 1
		case i%2 == 0:
			num = m * (b - m) * x / ((a + 2*m - 1) * (a + 2*m))
		default:
			num = -(a + m) * (a + b + m) * x / ((a + 2*m) * (a + 2*m + 1))
		}
		d = 1 + num*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		d = 1 / d
		c = 1 + num/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		cd := c * d
		f *= cd
		if math.Abs(1-cd) < 1e-12 {
			break
		}
	}
	return front * (f - 1) / a
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

// QuantileCI is a distribution-free confidence interval for the p-th
// percentile (0 < p < 100) of the population a histogram was sampled from:
// the order statistics at ranks n·q ± z·sqrt(n·q·(1-q)), read from the
// bins. It assumes requests are independent.
func QuantileCI(b record.Bins, p, z float64) (lo, hi int64) {
	n := float64(b.Total())
	if n == 0 {
		return 0, 0
	}
	q := p / 100
	half := z * math.Sqrt(n*q*(1-q))
	return rankValue(b, math.Max(1, math.Floor(n*q-half))), rankValue(b, math.Min(n, math.Ceil(n*q+half)))
}

// rankValue is the value of the k-th smallest operation (1-based).
func rankValue(b record.Bins, k float64) int64 {
	var cum uint64
	for _, x := range b {
		cum += x.N
		if float64(cum) >= k {
			return x.V
		}
	}
	if len(b) == 0 {
		return 0
	}
	return b[len(b)-1].V
}
