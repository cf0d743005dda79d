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

// Runs is the test of one figure between two groups of runs, each run
// one value: Student's two-sample t with the groups' pooled spread,
// one-sided at 1-alpha/tests (Bonferroni over the figures tested
// together). Against one run (m = 1) it is the one-sided prediction
// bound of the other group, mean ± t(1-alpha/tests, n-1)·s·√(1+1/n):
// check's regression gate and compare of groups are this one test.
type Runs struct {
	MeanA, MeanB float64
	NA, NB       int
	// Stddev is the pooled run-to-run standard deviation.
	Stddev float64
	// Bound is how far MeanB may lie from MeanA by noise alone, in the
	// figure's unit: a change is beyond noise when |MeanB-MeanA| > Bound.
	Bound float64
	// OK is false with fewer than three runs in all (no spread to
	// judge by: one run a side).
	OK bool
}

// Beyond says the change is beyond noise.
func (r Runs) Beyond() bool { return r.OK && math.Abs(r.MeanB-r.MeanA) > r.Bound }

// RunsTest tests the change of a figure from runs a to runs b, at level
// alpha shared by tests figures.
func RunsTest(a, b []float64, alpha float64, tests int) Runs {
	da, db := Describe(a), Describe(b)
	r := Runs{MeanA: da.Mean, MeanB: db.Mean, NA: da.N, NB: db.N}
	df := da.N + db.N - 2
	if da.N == 0 || db.N == 0 || df < 1 {
		return r
	}
	ss := float64(da.N-1)*da.Stddev*da.Stddev + float64(db.N-1)*db.Stddev*db.Stddev
	r.Stddev = math.Sqrt(ss / float64(df))
	t := StudentQuantile(1-Alpha(alpha)/float64(max(tests, 1)), float64(df))
	r.Bound = t * r.Stddev * math.Sqrt(1/float64(da.N)+1/float64(db.N))
	r.OK = true
	return r
}
