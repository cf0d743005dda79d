package s3

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/units"
)

// SizeSpec is --obj.size as written: one size ("4KiB", or a number of
// bytes in JSON), "MIN,MAX" (sizes drawn uniformly between the two, or
// log2-uniformly with --obj.randsize), or size buckets with weights
// ("4KiB:50,64KiB:30,1MiB:20": a bucket is drawn by weight, then a size
// uniformly between the bucket below's bound and its own, as warp does).
type SizeSpec string

// UnmarshalJSON accepts a number of bytes or a string.
func (s *SizeSpec) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var str string
		if err := json.Unmarshal(b, &str); err != nil {
			return err
		}
		*s = SizeSpec(str)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("size %s: want a number of bytes or a string such as \"4KiB\" or \"4KiB:50,1MiB:50\"", b)
	}
	*s = SizeSpec(n.String())
	return nil
}

// Kinds of size distribution.
const (
	distFixed     = iota
	distUniform   // MIN,MAX: every size equally likely
	distLog2      // --obj.randsize: as many objects per doubling of size
	distBuckets   // SIZE:WEIGHT,...
	distLognormal // --obj.dist lognormal
)

// sizeDist draws object sizes. Drawing allocates nothing and takes the
// worker's own random source: buckets are drawn in O(1) with Vose's alias
// table, made once.
type sizeDist struct {
	kind   int
	lo, hi int64 // every size drawn is in [lo, hi]

	// buckets: sizes of bucket i are in [bLo[i], bHi[i]]; bucket i is kept
	// when a uniform draw is below prob[i], else alias[i] is taken.
	bLo, bHi []int64
	bW       []float64 // weights as given
	prob     []float64
	alias    []int

	// lognormal: the underlying normal's mean and standard deviation.
	mu, sigma float64

	// classes split [lo, hi] for per-size results (nil: one size only).
	classes []record.SizeClass

	desc string // how the distribution was given, for the results
}

// errSize formats a size distribution error naming the flag.
func errSize(spec string, format string, args ...any) error {
	return fmt.Errorf("s3: --obj.size %q: %s", spec, fmt.Sprintf(format, args...))
}

// parseSizes reads --obj.size (with --obj.randsize) into a distribution.
func parseSizes(spec string, randSize bool) (*sizeDist, error) {
	s := strings.TrimSpace(spec)
	if s == "" {
		return nil, errSize(spec, "empty: give a size, MIN,MAX, or SIZE:WEIGHT,...")
	}
	d := &sizeDist{desc: s}
	switch {
	case strings.Contains(s, ":"):
		if randSize {
			return nil, errSize(spec, "--obj.randsize has no meaning with size buckets (sizes are already drawn within each bucket)")
		}
		if err := d.parseBuckets(spec, s); err != nil {
			return nil, err
		}
	case strings.Contains(s, ","):
		parts := strings.Split(s, ",")
		if len(parts) != 2 {
			return nil, errSize(spec, "want MIN,MAX (two sizes), or buckets SIZE:WEIGHT,...")
		}
		lo, err := positiveSize(spec, parts[0])
		if err != nil {
			return nil, err
		}
		hi, err := positiveSize(spec, parts[1])
		if err != nil {
			return nil, err
		}
		if lo > hi {
			return nil, errSize(spec, "the smallest size is above the largest: write MIN,MAX")
		}
		d.lo, d.hi, d.kind = lo, hi, distUniform
		if randSize {
			d.kind = distLog2
		}
		if lo == hi {
			d.kind = distFixed
		}
	default:
		n, err := positiveSize(spec, s)
		if err != nil {
			return nil, err
		}
		d.lo, d.hi, d.kind = n, n, distFixed
		if randSize && n > 1 {
			// warp's --obj.randsize: log2-uniform from a 1024th of the
			// size up to it.
			d.lo, d.kind = max(1, n/1024), distLog2
		}
	}
	d.classes = classesOf(d)
	return d, nil
}

// positiveSize parses one size of spec, which must be at least 1 byte.
func positiveSize(spec, s string) (int64, error) {
	n, err := units.ParseSize(s)
	if err != nil {
		return 0, errSize(spec, "%v", err)
	}
	if n < 1 {
		return 0, errSize(spec, "objects must be at least 1 byte")
	}
	return n, nil
}

// parseBuckets reads SIZE:WEIGHT,... with sizes increasing.
func (d *sizeDist) parseBuckets(spec, s string) error {
	var weights []float64
	prev := int64(0)
	for _, item := range strings.Split(s, ",") {
		sz, w, ok := strings.Cut(strings.TrimSpace(item), ":")
		if !ok {
			return errSize(spec, "bucket %q: want SIZE:WEIGHT", item)
		}
		n, err := positiveSize(spec, sz)
		if err != nil {
			return err
		}
		if n <= prev {
			return errSize(spec, "bucket sizes must increase (%s after %s)", strings.TrimSpace(sz), sizeLabel(prev))
		}
		wt, err := strconv.ParseFloat(strings.TrimSpace(w), 64)
		if err != nil || math.IsNaN(wt) || math.IsInf(wt, 0) {
			return errSize(spec, "weight %q of bucket %s is not a number", w, strings.TrimSpace(sz))
		}
		if wt < 0 {
			return errSize(spec, "weight %g of bucket %s is negative", wt, strings.TrimSpace(sz))
		}
		d.bLo = append(d.bLo, prev+1)
		d.bHi = append(d.bHi, n)
		weights = append(weights, wt)
		prev = n
	}
	sum := 0.0
	for _, w := range weights {
		sum += w
	}
	if sum <= 0 {
		return errSize(spec, "the weights add up to 0: no size could be drawn")
	}
	// Buckets of weight 0 are never drawn: the sizes' range is that of the
	// others.
	d.lo, d.hi = 0, 0
	for i, w := range weights {
		if w > 0 {
			if d.lo == 0 {
				d.lo = d.bLo[i]
			}
			d.hi = d.bHi[i]
		}
	}
	d.kind = distBuckets
	d.bW = weights
	d.prob, d.alias = aliasTable(weights)
	return nil
}

// lognormalSizes is --obj.dist lognormal: sizes whose mean and standard
// deviation are mean and sd bytes, from 1 byte up to limit (a draw above
// limit is drawn again).
func lognormalSizes(mean, sd, limit int64) (*sizeDist, error) {
	if mean < 1 {
		return nil, errors.New("s3: --obj.dist lognormal: --obj.mean must be at least 1 byte")
	}
	if sd < 1 {
		return nil, errors.New("s3: --obj.dist lognormal: --obj.sd must be at least 1 byte (for one size, leave --obj.dist out)")
	}
	if mean > limit {
		return nil, fmt.Errorf("s3: --obj.dist lognormal: --obj.mean %s is above the largest size %s", sizeLabel(mean), sizeLabel(limit))
	}
	// For a lognormal X = exp(N(mu, sigma)): E[X] = exp(mu + sigma^2/2)
	// and Var[X] = (exp(sigma^2) - 1) E[X]^2.
	m, s := float64(mean), float64(sd)
	s2 := math.Log1p(s * s / (m * m))
	d := &sizeDist{kind: distLognormal, mu: math.Log(m) - s2/2, sigma: math.Sqrt(s2), lo: 1, hi: limit,
		desc: fmt.Sprintf("lognormal mean %s sd %s", sizeLabel(mean), sizeLabel(sd))}
	d.classes = classesOf(d)
	return d, nil
}

// aliasTable builds Vose's alias table for weights (sum > 0).
func aliasTable(w []float64) (prob []float64, alias []int) {
	n := len(w)
	sum := 0.0
	for _, x := range w {
		sum += x
	}
	prob, alias = make([]float64, n), make([]int, n)
	scaled := make([]float64, n)
	var small, large []int
	for i, x := range w {
		scaled[i] = x * float64(n) / sum
		if scaled[i] < 1 {
			small = append(small, i)
		} else {
			large = append(large, i)
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		prob[s], alias[s] = scaled[s], l
		scaled[l] -= 1 - scaled[s]
		if scaled[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	// What is left has probability 1 (up to rounding).
	for _, i := range append(small, large...) {
		prob[i], alias[i] = 1, i
	}
	return prob, alias
}

// draw returns the next object size.
func (d *sizeDist) draw(rng *rand.Rand) int64 {
	switch d.kind {
	case distUniform:
		return d.lo + rng.Int64N(d.hi-d.lo+1)
	case distLog2:
		lo, hi := math.Log2(float64(d.lo)), math.Log2(float64(d.hi))
		return min(d.hi, max(d.lo, int64(math.Exp2(lo+rng.Float64()*(hi-lo)))))
	case distBuckets:
		i := rng.IntN(len(d.prob))
		if rng.Float64() >= d.prob[i] {
			i = d.alias[i]
		}
		return d.bLo[i] + rng.Int64N(d.bHi[i]-d.bLo[i]+1)
	case distLognormal:
		for range 64 {
			x := math.Round(math.Exp(d.mu + d.sigma*rng.NormFloat64()))
			if x >= 1 && x <= float64(d.hi) {
				return int64(x)
			}
		}
		return min(d.hi, max(1, int64(math.Exp(d.mu))))
	}
	return d.hi
}

// class returns the index of the size class holding n bytes (sizes below
// the first class count in it, above the last in it).
func (d *sizeDist) class(n int64) int {
	c := d.classes
	i := 0
	for i < len(c)-1 && n > c[i].MaxBytes {
		i++
	}
	return i
}

// maxClasses bounds the size classes of a continuous distribution: each
// costs a latency histogram per worker and operation.
const maxClasses = 8

// classesOf splits a distribution's sizes into the classes its results are
// given per: the buckets as given, or for a range of sizes, classes at
// powers of 4 from 1 KiB (16, 64 when there would be more than
// maxClasses). One size has no classes.
func classesOf(d *sizeDist) []record.SizeClass {
	switch d.kind {
	case distFixed:
		return nil
	case distBuckets:
		var out []record.SizeClass
		for i := range d.bLo {
			if d.bW[i] == 0 {
				continue // never drawn
			}
			out = append(out, record.SizeClass{MinBytes: d.bLo[i], MaxBytes: d.bHi[i]})
		}
		if len(out) < 2 {
			return nil
		}
		return labelClasses(out)
	}
	lo, hi := d.lo, d.hi
	if d.kind == distLognormal {
		// Where almost every draw falls: mean +- 3 standard deviations of
		// the underlying normal.
		lo = max(1, int64(math.Exp(d.mu-3*d.sigma)))
		hi = min(d.hi, int64(math.Exp(d.mu+3*d.sigma))+1)
	}
	for step := 4.0; ; step *= 4 {
		var edges []int64 // class upper bounds inside [lo, hi)
		for e := 1024.0; e < float64(hi); e *= step {
			if int64(e) > lo {
				edges = append(edges, int64(e))
			}
		}
		if len(edges)+1 > maxClasses {
			continue
		}
		if len(edges) == 0 {
			return nil
		}
		out := make([]record.SizeClass, 0, len(edges)+1)
		from := d.lo
		for _, e := range edges {
			out = append(out, record.SizeClass{MinBytes: from, MaxBytes: e})
			from = e + 1
		}
		out = append(out, record.SizeClass{MinBytes: from, MaxBytes: d.hi})
		return labelClasses(out)
	}
}

// labelClasses names each class by its bounds: "<=4KiB" for the first,
// "4KiB-64KiB" after.
func labelClasses(cs []record.SizeClass) []record.SizeClass {
	for i := range cs {
		if i == 0 {
			cs[i].Label = "<=" + sizeLabel(cs[i].MaxBytes)
		} else {
			cs[i].Label = sizeLabel(cs[i].MinBytes-1) + "-" + sizeLabel(cs[i].MaxBytes)
		}
	}
	return cs
}

// sizeLabel prints a size compactly in the largest binary unit that
// divides it: 4KiB, 1536KiB, 1MiB, 1000B.
func sizeLabel(n int64) string {
	for _, u := range []struct {
		div  int64
		name string
	}{{1 << 40, "TiB"}, {1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.div && n%u.div == 0 {
			return strconv.FormatInt(n/u.div, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}
