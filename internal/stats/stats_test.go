package stats

import (
	"math"
	"testing"
)

func relErr(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }

// Student's t quantiles P(T <= t) = p at the one-sided levels of two-sided
// 90%, 95% and 99% intervals. The values are R's qt(p, df); they were
// computed here with mpmath at 40 significant digits (bisection on the
// regularised incomplete beta function), which agrees with R's printed
// qt() to every printed digit (qt(0.975, 1) = 12.7062047361747,
// qt(0.975, 30) = 2.04227245630124, qt(0.995, 1000) = 2.58075469806).
var tTable = []struct {
	df              float64
	p95, p975, p995 float64
}{
	{1, 6.3137515146750431, 12.706204736174705, 63.656741162871581},
	{2, 2.9199855803537257, 4.3026527297494639, 9.9248432009182931},
	{3, 2.3533634348018239, 3.1824463052837096, 5.8409093097333573},
	{5, 2.0150483733330242, 2.5705818356363155, 4.0321429835552281},
	{10, 1.8124611228116764, 2.2281388519862747, 3.1692726726169512},
	{30, 1.6972608865939578, 2.0422724563012383, 2.7499956535672253},
	{100, 1.6602343260853396, 1.9839715185235523, 2.6258905214380179},
	{1000, 1.6463788172854647, 1.9623390808264085, 2.5807546980659511},
	// Fractional degrees of freedom, as Welch's test produces.
	{7.5, 1.8757474792112885, 2.3330396268649746, 3.4214226881240444},
	{2.5, 2.5582186141359366, 3.5746548420036832, 7.1637281389487855},
	{0.5, 41.136000092878275, 164.55767348048853, 4113.9645888041812},
}

func TestStudentQuantileAgainstPublishedValues(t *testing.T) {
	const tol = 1e-9 // the brief asks for 1e-6; the implementation does far better
	for _, r := range tTable {
		for _, c := range []struct {
			confidence, p, want float64
		}{{0.90, 0.95, r.p95}, {0.95, 0.975, r.p975}, {0.99, 0.995, r.p995}} {
			if got := TwoSidedT(c.confidence, r.df); relErr(got, c.want) > tol {
				t.Errorf("two-sided %.0f%% t(df=%g) = %.15g, want %.15g (rel. error %.1e)", 100*c.confidence, r.df, got, c.want, relErr(got, c.want))
			}
			if got := StudentQuantile(c.p, r.df); relErr(got, c.want) > tol {
				t.Errorf("StudentQuantile(%g, %g) = %.15g, want %.15g", c.p, r.df, got, c.want)
			}
			if got := StudentQuantile(1-c.p, r.df); relErr(got, -c.want) > tol {
				t.Errorf("StudentQuantile(%g, %g) = %.15g, want %.15g", 1-c.p, r.df, got, -c.want)
			}
			// And back: the CDF at the quantile is p.
			if got := StudentCDF(c.want, r.df); math.Abs(got-c.p) > 1e-12 {
				t.Errorf("StudentCDF(%.15g, %g) = %.15g, want %g", c.want, r.df, got, c.p)
			}
		}
	}
}

// Closed forms checkable by hand: with 1 degree of freedom t is Cauchy,
// t_p = tan(π(p-½)); with 2, t_p = (2p-1)/√(2p(1-p)).
func TestStudentQuantileClosedForms(t *testing.T) {
	for _, p := range []float64{0.6, 0.75, 0.9, 0.95, 0.975, 0.99, 0.995, 0.9995, 0.25, 0.01} {
		if got, want := StudentQuantile(p, 1), math.Tan(math.Pi*(p-0.5)); relErr(got, want) > 1e-12 {
			t.Errorf("df 1, p %g: %.15g, want %.15g", p, got, want)
		}
		if got, want := StudentQuantile(p, 2), (2*p-1)/math.Sqrt(2*p*(1-p)); relErr(got, want) > 1e-12 {
			t.Errorf("df 2, p %g: %.15g, want %.15g", p, got, want)
		}
		if got, want := StudentCDF(math.Tan(math.Pi*(p-0.5)), 1), p; math.Abs(got-want) > 1e-14 {
			t.Errorf("Cauchy CDF at its %g quantile: %.15g", p, got)
		}
	}
}

// Far degrees of freedom approach the normal; the edges are what they
// should be.
func TestStudentEdges(t *testing.T) {
	if got := TwoSidedT(0.95, 1e5); relErr(got, 1.9599877075346096) > 1e-9 {
		t.Errorf("df 1e5: %.15g", got)
	}
	if got := TwoSidedT(0.95, math.Inf(1)); relErr(got, 1.959963984540054) > 1e-12 {
		t.Errorf("df Inf: %.15g, want the normal's 1.959963984540054", got)
	}
	// Both sides of the switch from the continued fraction to the series,
	// and degrees of freedom where the fraction alone would lose digits
	// (mpmath, 50 digits).
	for _, c := range []struct{ t, df, want float64 }{
		{1.96, 999, 0.025136731366905021}, {6, 999, 1.3781345344522072e-9},
		{1.96, 1001, 0.025136453866449251}, {6, 1001, 1.3772356637953631e-9},
		{1.96, 1e6, 0.024998033792634893}, {6, 1e12, 9.8658764537490964e-10},
		{30, 1e6, 6.0100471168317189e-198},
	} {
		if got := StudentTail(c.t, c.df); relErr(got, c.want) > 1e-12 {
			t.Errorf("tail(%g, %g) = %.17g, want %.17g", c.t, c.df, got, c.want)
		}
	}
	if got := StudentTail(10, 7.5); relErr(got, 6.6829890746937312e-6) > 1e-10 {
		t.Errorf("tail(10, 7.5) = %.15g", got)
	}
	if got := StudentCDF(2, 3); relErr(got, 0.93033701572057841) > 1e-12 {
		t.Errorf("CDF(2, 3) = %.15g", got)
	}
	for name, v := range map[string]float64{
		"df 0": StudentQuantile(0.9, 0), "df -1": StudentQuantile(0.9, -1), "p 1.5": StudentQuantile(1.5, 3),
		"p NaN": StudentQuantile(math.NaN(), 3), "CDF df 0": StudentCDF(1, 0), "confidence 2": TwoSidedT(2, 3),
	} {
		if !math.IsNaN(v) {
			t.Errorf("%s: %v, want NaN", name, v)
		}
	}
	if StudentQuantile(0.5, 4) != 0 || !math.IsInf(StudentQuantile(1, 4), 1) || !math.IsInf(StudentQuantile(0, 4), -1) {
		t.Error("quantile at 0.5, 1 or 0")
	}
	if got := NormalQuantile(0.975); relErr(got, 1.959963984540054) > 1e-14 {
		t.Errorf("NormalQuantile(0.975) = %.16g", got)
	}
}

// The Gluster fixture by hand: 210, 200, 220 -> mean 210, deviations 0,
// -10, +10, sum of squares 200, sample variance 100, stddev 10, CoV 10/210
// = 4.762%; 95% interval 210 ± t(0.975, 2)·10/√3 with t(0.975, 2) =
// 0.95/√(2·0.975·0.025) = 4.3026527 -> ± 24.8414 (a table's rounded 4.303
// gives the 24.843 printed in older notes). At 90%: t = 0.9/√(2·0.95·0.05)
// = 2.9199856 -> ± 16.8585.
func TestDescribeAndIntervalHandComputed(t *testing.T) {
	d := Describe([]float64{210, 200, 220})
	if d.N != 3 || d.Mean != 210 || d.Stddev != 10 || d.Min != 200 || d.Max != 220 || relErr(d.CoV, 10.0/210) > 1e-15 {
		t.Fatalf("%+v", d)
	}
	for _, c := range []struct{ conf, half float64 }{{0.95, 24.841377117503311}, {0.90, 16.858544608470491}} {
		lo, hi := d.MeanInterval(c.conf)
		if relErr(210-lo, c.half) > 1e-9 || relErr(hi-210, c.half) > 1e-9 {
			t.Errorf("%.0f%%: [%v, %v], want 210 ± %v", 100*c.conf, lo, hi, c.half)
		}
	}
	one := Describe([]float64{5})
	if lo, hi := one.MeanInterval(0.95); one.Stddev != 0 || lo != 5 || hi != 5 {
		t.Errorf("one value: %+v, interval [%v, %v]", one, lo, hi)
	}
	if z := Describe(nil); z != (Descriptive{}) {
		t.Errorf("no values: %+v", z)
	}
	if neg := Describe([]float64{-9, -11}); relErr(neg.CoV, math.Sqrt2/10) > 1e-15 {
		t.Errorf("CoV of a negative mean: %v", neg.CoV)
	}
}

// Welch's test on two samples; the reference is computed with mpmath at 40
// digits: t = 3.00405914943557, df = 7.13681702542685, p = 0.0193786261954.
func TestWelchKnownValue(t *testing.T) {
	a := []float64{19.1, 20.4, 18.8, 21.0, 19.5}
	b := []float64{21.3, 22.8, 20.1, 23.5, 21.9}
	w := WelchTest(a, b)
	if !w.OK || relErr(w.T, 3.0040591494355672) > 1e-12 || relErr(w.DF, 7.1368170515268424) > 1e-12 || relErr(w.P, 0.019378626954199265) > 1e-9 {
		t.Errorf("Welch %+v", w)
	}
	if w := WelchTest(a[:1], b); w.OK || w.P != 1 {
		t.Errorf("one value: %+v", w)
	}
	if w := WelchTest([]float64{3, 3}, []float64{4, 4}); !w.OK || w.P != 0 {
		t.Errorf("constant, different: %+v", w)
	}
}

func TestBatchMeans(t *testing.T) {
	got := BatchMeans([]float64{1, 3, 5, 7, 9}, 2)
	if len(got) != 2 || got[0] != 2 || got[1] != 6 {
		t.Errorf("%v", got)
	}
	for n, want := range map[int]int{7: 0, 8: 2, 16: 2, 24: 3, 32: 4, 40: 5, 600: 5} {
		if got := BatchSize(n); got != want {
			t.Errorf("BatchSize(%d) = %d, want %d", n, got, want)
		}
	}
}

// Quantile and CDF invert each other across degrees of freedom from far
// below 1 to far above any run's, deep into the tails.
func TestStudentRoundTrip(t *testing.T) {
	for _, df := range []float64{0.2, 0.5, 1, 1.5, 2.2, 3, 4.7, 9, 17.3, 60, 250.5, 4000, 1e6, 1e9, 1e12} {
		for _, q := range []float64{0.4, 0.25, 0.1, 0.05, 0.025, 1e-3, 1e-6, 1e-10} {
			tq := upperT(q, df)
			if got := StudentTail(tq, df); relErr(got, q) > 1e-12 {
				t.Errorf("df %g: tail(quantile(%g)) = %.15g", df, q, got)
			}
		}
	}
}

// RunsTest against one run is the prediction bound check has always
// used, hand-computed: runs 10, 12, 14 (mean 12, s 2) and one run after,
// t(0.95, 2) = 2.919986 · 2 · √(1+1/3) = 6.7436; with two figures
// tested, t(0.975, 2) = 4.302653 · 2 · √(4/3) = 9.9366. Two groups pool
// their spread: 10, 12, 14 and 20, 22 (s 2 and √2), s² = (8+2)/3.
func TestRunsTestHandComputed(t *testing.T) {
	r := RunsTest([]float64{10, 12, 14}, []float64{19}, 0.05, 1)
	if !r.OK || relErr(r.Bound, 6.7436) > 1e-4 || !r.Beyond() {
		t.Errorf("3 runs vs 1 at 19: %+v, want bound 6.7436, beyond", r)
	}
	if r := RunsTest([]float64{10, 12, 14}, []float64{18}, 0.05, 2); relErr(r.Bound, 9.9366) > 1e-4 || r.Beyond() {
		t.Errorf("3 runs vs 1 at 18, 2 figures: %+v, want bound 9.9366, within", r)
	}
	g := RunsTest([]float64{10, 12, 14}, []float64{20, 22}, 0.05, 1)
	want := StudentQuantile(0.95, 3) * math.Sqrt(10.0/3) * math.Sqrt(1.0/3+1.0/2)
	if relErr(g.Bound, want) > 1e-9 || g.MeanB != 21 || !g.Beyond() {
		t.Errorf("3 runs vs 2: %+v, want bound %v", g, want)
	}
	if r := RunsTest([]float64{10}, []float64{20}, 0.05, 1); r.OK || r.Beyond() {
		t.Errorf("one run a side: %+v, want untested", r)
	}
}
