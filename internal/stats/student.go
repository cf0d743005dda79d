package stats

import "math"

// Student's t distribution for any positive degrees of freedom, integer or
// not (Welch–Satterthwaite gives fractional ones). The upper tail is the
// regularised incomplete beta function,
//
//	P(T > t) = ½·I_x(ν/2, ½), x = ν/(ν+t²), t >= 0,
//
// evaluated by its continued fraction up to 1000 degrees of freedom and by
// a series of incomplete gamma functions above; the quantile inverts it by
// Newton's method kept inside a bracket. Both are accurate to about 1e-13
// relative (the tests check them against 40-digit values), so no table of
// critical values, and no rounding to the nearest tabulated degrees of
// freedom, is needed anywhere. This is a few dozen lines of arithmetic; a
// statistics library (gonum's distuv) would bring a large module for it.

// StudentCDF is P(T <= t) for Student's t with df > 0 degrees of freedom
// (df = +Inf is the standard normal). NaN for df <= 0 or NaN arguments.
func StudentCDF(t, df float64) float64 {
	if math.IsNaN(t) || math.IsNaN(df) || df <= 0 {
		return math.NaN()
	}
	if t < 0 {
		return StudentTail(-t, df)
	}
	return 1 - StudentTail(t, df)
}

// StudentTail is the upper tail P(T > t) for t >= 0 (½ at 0, 0 at +Inf).
// It keeps full relative precision far into the tail, where 1-StudentCDF
// would not.
func StudentTail(t, df float64) float64 {
	switch {
	case math.IsNaN(t) || math.IsNaN(df) || df <= 0 || t < 0:
		return math.NaN()
	case math.IsInf(t, 1):
		return 0
	case math.IsInf(df, 1):
		return 0.5 * math.Erfc(t/math.Sqrt2)
	}
	if df > largeDF {
		return studentTailLargeDF(t, df)
	}
	t2 := t * t
	// x and 1-x both computed without cancellation.
	x, y := df/(df+t2), t2/(df+t2)
	if math.IsInf(t2, 1) {
		x, y = 0, 1
	}
	return 0.5 * regIncBeta(df/2, 0.5, x, y)
}

// studentPDF is the density of Student's t at t.
func studentPDF(t, df float64) float64 {
	la, _ := math.Lgamma((df + 1) / 2)
	lb, _ := math.Lgamma(df / 2)
	return math.Exp(la - lb - 0.5*math.Log(df*math.Pi) - (df+1)/2*math.Log1p(t*t/df))
}

// StudentQuantile is the t with P(T <= t) = p for Student's t with df > 0
// degrees of freedom: -Inf at p = 0, +Inf at p = 1, NaN outside [0, 1] or
// for df <= 0.
func StudentQuantile(p, df float64) float64 {
	switch {
	case math.IsNaN(p) || math.IsNaN(df) || df <= 0 || p < 0 || p > 1:
		return math.NaN()
	case p < 0.5:
		return -upperT(p, df)
	}
	return upperT(1-p, df) // exact: p in [0.5, 1]
}

// TwoSidedT is the critical value of a two-sided interval or test at the
// given confidence (0.95 for 95%): the t with P(|T| <= t) = confidence.
func TwoSidedT(confidence, df float64) float64 {
	if !(confidence >= 0 && confidence <= 1) {
		return math.NaN()
	}
	return upperT((1-confidence)/2, df)
}

// upperT solves P(T > t) = q for t >= 0, 0 < q <= ½.
func upperT(q, df float64) float64 {
	switch {
	case math.IsNaN(q) || math.IsNaN(df) || df <= 0 || q < 0 || q > 0.5:
		return math.NaN()
	case q == 0:
		return math.Inf(1)
	case q == 0.5:
		return 0
	case math.IsInf(df, 1):
		return -NormalQuantile(q)
	}
	// Bracket the root: the tail falls from ½ at 0 towards 0.
	lo, hi := 0.0, math.Max(1, -2*NormalQuantile(q))
	for StudentTail(hi, df) > q {
		lo, hi = hi, 2*hi
		if hi > 1e300 {
			return math.Inf(1) // beyond float64 for tiny df and q
		}
	}
	// Newton from the normal quantile, falling back to bisection whenever a
	// step would leave the bracket; the bracket shrinks on every step.
	t := math.Min(math.Max(-NormalQuantile(q), lo), hi)
	if t <= lo || t >= hi {
		t = lo + (hi-lo)/2
	}
	for i := 0; i < 400; i++ {
		f := StudentTail(t, df) - q
		if f == 0 {
			return t
		}
		if f > 0 {
			lo = t
		} else {
			hi = t
		}
		next := t + f/studentPDF(t, df)
		if !(next > lo && next < hi) {
			next = lo + (hi-lo)/2
		}
		if math.Abs(next-t) <= 1e-15*t || hi-lo <= 1e-15*hi {
			return next
		}
		t = next
	}
	return t
}

// regIncBeta is the regularised incomplete beta function I_x(a, b) with
// y = 1-x given separately (so a caller that knows 1-x exactly does not lose
// it to cancellation), evaluated by its continued fraction (modified
// Lentz's method).
func regIncBeta(a, b, x, y float64) float64 {
	if x <= 0 {
		return 0
	}
	if y <= 0 {
		return 1
	}
	// log x and log y from whichever of the two is known without rounding
	// near 1, so that a·log x keeps its digits when a is large.
	lx, ly := math.Log(x), math.Log1p(-x)
	if x > 0.5 {
		lx, ly = math.Log1p(-y), math.Log(y)
	}
	lc, _ := math.Lgamma(b)
	front := math.Exp(lgammaRatio(a, b) - lc + a*lx + b*ly)
	// The fraction converges fast for x below the mean of Beta(a, b); use
	// the symmetry I_x(a,b) = 1 - I_{1-x}(b,a) above it.
	if x > (a+1)/(a+b+2) {
		return 1 - front*betaCF(b, a, y)/b
	}
	return front * betaCF(a, b, x) / a
}

// lgammaRatio is log Γ(a+b) - log Γ(a). For large a the two log-gammas are
// large and nearly equal (600 at a = 150, 6e6 at a = 5e5), so their
// difference would lose digits (1e-13 and 1e-9 relative); there it is taken
// from Stirling's series instead, whose terms up to 1/x⁷ are exact to
// float64 precision for x >= 50.
func lgammaRatio(a, b float64) float64 {
	if a < 50 || b > a/100 {
		la, _ := math.Lgamma(a + b)
		lb, _ := math.Lgamma(a)
		return la - lb
	}
	stirling := func(x float64) float64 { // log Γ(x) - ((x-½)·log x - x + ½·log 2π)
		r := 1 / (x * x)
		return (1.0/12 - r*(1.0/360-r*(1.0/1260-r/1680))) / x
	}
	return (a-0.5)*math.Log1p(b/a) + b*math.Log(a+b) - b + stirling(a+b) - stirling(a)
}

// betaCF is the continued fraction of I_x(a, b) without its front factor.
// It needs O(√max(a, b)) terms; the bound is far above that for any
// degrees of freedom a run produces.
func betaCF(a, b, x float64) float64 {
	const tiny = 1e-300
	nonzero := func(v float64) float64 {
		if math.Abs(v) < tiny {
			return tiny
		}
		return v
	}
	c, d := 1.0, 1/nonzero(1-(a+b)*x/(a+1))
	f := d
	// step takes one more partial numerator and returns the factor by
	// which it changes the convergent.
	step := func(num float64) float64 {
		d = 1 / nonzero(1+num*d)
		c = nonzero(1 + num/c)
		return d * c
	}
	for m := 1.0; m <= 100000; m++ {
		f *= step(m * (b - m) * x / ((a + 2*m - 1) * (a + 2*m)))             // even
		cd := step(-(a + m) * (a + b + m) * x / ((a + 2*m) * (a + 2*m + 1))) // odd
		f *= cd
		if math.Abs(cd-1) < 1e-15 {
			break
		}
	}
	return f
}

// largeDF is where StudentTail leaves the continued fraction: its terms
// cancel more as the degrees of freedom grow (1e-13 relative at 1e3, 1e-11
// at 1e6, 1e-5 at 1e12), while the series below is exact to float64 from
// a few hundred on. Above 1000, a tail that does not underflow has
// log(1+t²/ν) < 1.5, well inside the series' radius 2π.
const largeDF = 1000

// studentTailLargeDF is P(T > t) for many degrees of freedom ν, by an
// expansion exact in the limit and fast where the continued fraction is
// not. With a = ν/2, x = ν/(ν+t²) and s = e^{-v}, 2·P(T > t) = I_x(a, ½) =
// ∫_{v0}^∞ e^{-a·v} (1-e^{-v})^{-½} dv / B(a, ½), v0 = log(1+t²/ν). Writing
// (1-e^{-v})^{-½} = v^{-½}·Σ h_k v^k (h below) and integrating term by term
// gives Σ h_k Γ(k+½, a·v0) / a^{k+½}: the leading term is the normal tail
// of √(2·a·v0), and each further one is smaller by about (k+½)/a.
func studentTailLargeDF(t, df float64) float64 {
	a := df / 2
	z := a * math.Log1p(t*t/df)
	// g = Γ(k+½, z)/√π by the upward recurrence Γ(s+1, z) = s·Γ(s, z) +
	// z^s·e^{-z}, whose terms are all positive.
	g := math.Erfc(math.Sqrt(z))
	pow := math.Exp(-z) * math.Sqrt(z) / math.Sqrt(math.Pi) // z^{k+½}·e^{-z}/√π
	sum, scale := 0.0, 1.0                                  // scale = a^{-k}
	for k := 0; k < len(halfPowerSeries); k++ {
		term := halfPowerSeries[k] * g * scale
		sum += term
		if k > 2 && math.Abs(term) <= 1e-17*sum {
			break
		}
		g = (float64(k)+0.5)*g + pow
		pow *= z
		scale /= a
	}
	// 1/B(a, ½) = Γ(a+½)/(Γ(a)·√π); the √π is in g.
	return 0.5 * math.Exp(lgammaRatio(a, 0.5)) / math.Sqrt(a) * sum
}

// halfPowerSeries holds h_k with √(v/(1-e^{-v})) = Σ h_k v^k (|v| < 2π):
// the reciprocal of (1-e^{-v})/v = Σ (-v)^n/(n+1)!, then its square root,
// both by the usual recurrences on power series.
var halfPowerSeries = func() []float64 {
	const n = 24
	var s, r, h [n]float64
	fact := 1.0
	for k := 0; k < n; k++ {
		fact *= float64(k + 1)
		s[k] = math.Pow(-1, float64(k)) / fact
	}
	r[0] = 1
	for k := 1; k < n; k++ {
		for j := 1; j <= k; j++ {
			r[k] -= s[j] * r[k-j]
		}
	}
	h[0] = 1
	for k := 1; k < n; k++ {
		acc := r[k]
		for j := 1; j < k; j++ {
			acc -= h[j] * h[k-j]
		}
		h[k] = acc / 2
	}
	return h[:]
}()
