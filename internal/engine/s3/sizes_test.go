package s3

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func sizeParams(spec string) Params {
	z := SizeSpec(spec)
	return Params{Op: "put", Hosts: []string{"127.0.0.1:9000"}, AccessKey: "a", SecretKey: "b", ObjSize: &z}
}

// Bad size distributions are one line naming --obj.size and what is wrong.
func TestBadSizeDistributions(t *testing.T) {
	for _, tc := range []struct {
		name, spec string
		mod        func(*Params)
		want       string
	}{
		{"weight not a number", "4KiB:fifty,1MiB:50", nil, `weight "fifty" of bucket 4KiB is not a number`},
		{"weight missing", "4KiB:,1MiB:50", nil, "is not a number"},
		{"weights sum to zero", "4KiB:0,64KiB:0", nil, "the weights add up to 0"},
		{"negative weight", "4KiB:-1,64KiB:2", nil, "is negative"},
		{"bucket without weight", "4KiB:50,1MiB", nil, "want SIZE:WEIGHT"},
		{"bucket sizes not increasing", "64KiB:50,4KiB:50", nil, "must increase"},
		{"bucket size zero", "0:50,4KiB:50", nil, "at least 1 byte"},
		{"bucket size malformed", "4XB:50", nil, "invalid size"},
		{"min above max", "1MiB,4KiB", nil, "MIN,MAX"},
		{"three sizes", "1KiB,2KiB,3KiB", nil, "want MIN,MAX"},
		{"empty", " ", nil, "empty"},
		{"randsize with buckets", "4KiB:1,8KiB:1", func(p *Params) { p.ObjRandSize = true }, "--obj.randsize has no meaning"},
		{"unknown dist", "4KiB", func(p *Params) { p.ObjDist = "pareto" }, `--obj.dist "pareto"`},
		{"mean without dist", "4KiB", func(p *Params) { p.ObjMean = 4096 }, "need --obj.dist lognormal"},
		{"lognormal without sd", "1MiB", func(p *Params) { p.ObjDist, p.ObjMean = "lognormal", 4096 }, "--obj.sd must be at least 1 byte"},
		{"lognormal mean above max", "1MiB", func(p *Params) { p.ObjDist, p.ObjMean, p.ObjSD = "lognormal", 2<<20, 10 }, "above the largest size"},
		{"lognormal with buckets", "4KiB:1,8KiB:1", func(p *Params) { p.ObjDist, p.ObjMean, p.ObjSD = "lognormal", 10, 10 }, "give one size"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := sizeParams(tc.spec)
			if tc.mod != nil {
				tc.mod(&p)
			}
			_, err := resolve(p, noKeys)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %v, want one line containing %q", err, tc.want)
			}
		})
	}
}

// --range-size must fit in every object: a range larger than the smallest
// object is refused before anything runs.
func TestRangeSizeLargerThanObject(t *testing.T) {
	for _, tc := range []struct {
		spec, rs string
		ok       bool
	}{
		{"4KiB", "8KiB", false},
		{"4KiB,1MiB", "8KiB", false},       // the smallest object is 4 KiB
		{"4KiB:50,1MiB:50", "2KiB", false}, // the first bucket starts at 1 byte
		{"4KiB", "4KiB", true},
		{"64KiB,1MiB", "8KiB", true},
	} {
		p := sizeParams(tc.spec)
		p.Op = "get"
		n, _ := parseSizeForTest(tc.rs)
		p.RangeSize = Size(n)
		c, err := resolve(p, noKeys)
		if tc.ok != (err == nil) {
			t.Errorf("--obj.size %s --range-size %s: %v", tc.spec, tc.rs, err)
			continue
		}
		if !tc.ok && (!strings.Contains(err.Error(), "larger than the smallest object") || strings.Contains(err.Error(), "\n")) {
			t.Errorf("--obj.size %s --range-size %s: %v", tc.spec, tc.rs, err)
		}
		if tc.ok && !c.Range {
			t.Errorf("--range-size does not imply ranged GETs")
		}
	}
}

func parseSizeForTest(s string) (int64, error) {
	d, err := parseSizes(s, false)
	if err != nil {
		return 0, err
	}
	return d.hi, nil
}

// Bucketed sizes: each bucket is drawn by its weight, sizes within it
// uniformly between the bound below and its own (warp's rule), and every
// size falls in the class of its bucket.
func TestBucketedSizes(t *testing.T) {
	d, err := parseSizes("4KiB:50,64KiB:30,1MiB:20", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.classes) != 3 || d.classes[0].Label != "<=4KiB" || d.classes[1].Label != "4KiB-64KiB" || d.classes[2].Label != "64KiB-1MiB" {
		t.Fatalf("classes %+v", d.classes)
	}
	if d.classes[1].MinBytes != 4097 || d.classes[1].MaxBytes != 65536 {
		t.Fatalf("class bounds %+v", d.classes[1])
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 200000
	var count [3]int
	var sum [3]float64
	for range n {
		s := d.draw(rng)
		c := d.class(s)
		if s < d.classes[c].MinBytes || s > d.classes[c].MaxBytes {
			t.Fatalf("size %d in class %+v", s, d.classes[c])
		}
		count[c]++
		sum[c] += float64(s)
	}
	for i, w := range []float64{0.5, 0.3, 0.2} {
		got := float64(count[i]) / n
		// 200,000 draws: the standard error of a share is under 0.0012.
		if math.Abs(got-w) > 0.006 {
			t.Errorf("bucket %d drawn %.4f of the time, want %.2f", i, got, w)
		}
		lo, hi := float64(d.classes[i].MinBytes), float64(d.classes[i].MaxBytes)
		if mean := sum[i] / float64(count[i]); math.Abs(mean-(lo+hi)/2) > 0.01*(hi-lo) {
			t.Errorf("bucket %d mean size %.0f, want %.0f (uniform)", i, mean, (lo+hi)/2)
		}
	}
	// A bucket of weight 0 is never drawn and has no class.
	d, err = parseSizes("4KiB:1,8KiB:0,16KiB:1", false)
	if err != nil {
		t.Fatal(err)
	}
	for range 10000 {
		if s := d.draw(rng); s > 4096 && s <= 8192 {
			t.Fatalf("drew %d from a bucket of weight 0", s)
		}
	}
	if len(d.classes) != 2 {
		t.Errorf("classes %+v, want 2", d.classes)
	}
}

// MIN,MAX is uniform (log2 with --obj.randsize); classes are powers of 4
// from 1 KiB; lognormal has the mean and standard deviation asked for.
func TestContinuousSizes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	d, err := parseSizes("4KiB,1MiB", false)
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, c := range d.classes {
		labels = append(labels, c.Label)
	}
	if got := strings.Join(labels, " "); got != "<=16KiB 16KiB-64KiB 64KiB-256KiB 256KiB-1MiB" {
		t.Errorf("classes %s", got)
	}
	const n = 100000
	var sum float64
	for range n {
		s := d.draw(rng)
		if s < 4096 || s > 1<<20 {
			t.Fatalf("size %d outside 4KiB,1MiB", s)
		}
		sum += float64(s)
	}
	if want := float64(4096+1<<20) / 2; math.Abs(sum/n-want) > 0.01*want {
		t.Errorf("uniform mean %.0f, want %.0f", sum/n, want)
	}
	// log2: as many sizes below the geometric middle as above.
	d, _ = parseSizes("4KiB,1MiB", true)
	below := 0
	for range n {
		if d.draw(rng) < 64<<10 { // sqrt(4KiB * 1MiB)
			below++
		}
	}
	if f := float64(below) / n; math.Abs(f-0.5) > 0.01 {
		t.Errorf("log2 sizes: %.3f below the geometric middle, want 0.5", f)
	}
	d, err = lognormalSizes(1<<20, 512<<10, MaxPutSize)
	if err != nil {
		t.Fatal(err)
	}
	var s1, s2 float64
	for range n {
		x := float64(d.draw(rng))
		s1 += x
		s2 += x * x
	}
	mean := s1 / n
	sd := math.Sqrt(s2/n - mean*mean)
	if math.Abs(mean-(1<<20)) > 0.01*(1<<20) || math.Abs(sd-(512<<10)) > 0.03*(512<<10) {
		t.Errorf("lognormal mean %.0f sd %.0f, want 1048576 and 524288", mean, sd)
	}
	if len(d.classes) < 2 || len(d.classes) > maxClasses {
		t.Errorf("lognormal classes %+v", d.classes)
	}
	// One size: no classes, no per-size results.
	if d, _ := parseSizes("64KiB", false); d.classes != nil {
		t.Errorf("one size has classes %+v", d.classes)
	}
}

// Drawing a size and finding its class allocate nothing, whatever the
// distribution.
func TestSizeDrawAllocatesNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	ln, _ := lognormalSizes(1<<20, 1<<20, MaxPutSize)
	for _, d := range []*sizeDist{
		must(parseSizes("4KiB:50,64KiB:30,1MiB:20", false)),
		must(parseSizes("4KiB,1MiB", false)),
		must(parseSizes("1MiB", true)),
		ln,
	} {
		var sink int
		a := testing.AllocsPerRun(1000, func() { sink += d.class(d.draw(rng)) })
		if a != 0 {
			t.Errorf("%s: %.2f allocations per draw", d.desc, a)
		}
	}
}

func must(d *sizeDist, err error) *sizeDist {
	if err != nil {
		panic(err)
	}
	return d
}

func BenchmarkSizeDrawBuckets(b *testing.B) {
	d := must(parseSizes("4KiB:50,64KiB:30,1MiB:20", false))
	rng := rand.New(rand.NewPCG(7, 8))
	b.ReportAllocs()
	var sink int64
	for b.Loop() {
		sink += d.draw(rng)
	}
	_ = sink
}
