package stats

import "math"

// Welch is the result of Welch's unequal-variance t-test of two samples.
type Welch struct {
	T  float64 // t statistic of mean(b) - mean(a)
	DF float64 // Welch–Satterthwaite degrees of freedom (fractional)
	P  float64 // two-sided p-value; 1 when the test cannot be made
	OK bool    // false with fewer than two values in a sample
}

// WelchTest compares the means of a and b.
func WelchTest(a, b []float64) Welch {
	da, db := Describe(a), Describe(b)
	return WelchMoments(float64(da.N), da.Mean, da.Stddev, float64(db.N), db.Mean, db.Stddev)
}

// WelchMoments is WelchTest from each sample's size, mean and sample
// standard deviation, for samples kept only as moments (latency
// histograms).
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
	return Welch{T: t, DF: df, P: 2 * StudentTail(math.Abs(t), df), OK: true}
}
