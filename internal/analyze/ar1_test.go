package analyze

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/stats"
)

// ar1Run makes one synthetic s3 GET phase of n seconds on one host whose
// latency level wanders as an AR(1) process: ln(level) of second t is
// phi*ln(level of t-1) + noise, with stationary spread sd, around 200 us;
// within a second, k requests are log-normal around the level (spread w).
// scale multiplies every latency (1.1: 10% slower). Latencies fall into
// 1% bins, as HdrHistogram's at 2 digits. What it returns has the shape
// of a results folder's phase: per-second series and histograms, the
// phase's histogram and its summary.
func ar1Run(seed uint64, n, k int, phi, sd, w, scale float64) PhaseData {
	rng := rand.New(rand.NewPCG(seed, 0xa1))
	t0 := int64(1_800_000_000) * 1e9
	x := rng.NormFloat64() * sd // start in the stationary distribution
	innov := sd * math.Sqrt(1-phi*phi)
	g0 := int(math.Round(math.Log(200_000*scale) / ar1Step))
	series := make([]record.Second, 0, n)
	secs := make([]record.LatSecond, 0, n)
	var st record.LatStats
	all := make([]uint64, len(ar1Exp))
	counts := make([]uint64, len(ar1Exp))
	for t := range n {
		if t > 0 {
			x = phi*x + innov*rng.NormFloat64()
		}
		lo, hi := len(counts), 0
		sec := record.LatStats{Min: math.MaxInt64}
		var sum, sq float64
		cx := float64(g0) + x/ar1Step
		for range k {
			// A normal deviate from the table, within-second spread w.
			z := ar1Norm[rng.IntN(len(ar1Norm))]
			g := int(math.Round(cx+z*w/ar1Step)) - ar1G0
			g = min(max(g, 0), len(ar1Exp)-1)
			ns := ar1Exp[g]
			counts[g]++
			all[g]++
			lo, hi = min(lo, g), max(hi, g)
			sum += float64(ns)
			sq += float64(ns) * float64(ns)
			sec.Min, sec.Max = min(sec.Min, ns), max(sec.Max, ns)
		}
		sec.N, sec.Mean = uint64(k), sum/float64(k)
		sec.M2 = sq - sum*sum/float64(k)
		st = st.Combine(sec)
		start := t0 + int64(t)*1e9
		series = append(series, record.Second{StartNs: start, EndNs: start + 1e9, Op: "GET", Ops: uint64(k), Bytes: uint64(k) * 4096})
		secs = append(secs, record.LatSecond{Op: "GET", StartNs: start, EndNs: start + 1e9, SumNs: sum, Bins: ar1Bins(counts[:hi+1], lo)})
		clear(counts[lo : hi+1])
	}
	phase := ar1Bins(all, 0)
	enc, err := record.EncodeLatSeconds(secs)
	if err != nil {
		panic(err)
	}
	h := &model.HostResult{Host: "client1", Series: series, LatencySeconds: enc, Ops: []record.OpStats{{
		Op: "GET", Ops: uint64(n * k), Bytes: uint64(n*k) * 4096, StartNs: t0, EndNs: t0 + int64(n)*1e9,
		Lat: record.Hist{Stats: st, Bins: phase}}}}
	ps := results.BuildPhase("s3-get", "s3", nil, []*model.HostResult{h})
	return PhaseData{Summary: ps, Hosts: []*model.HostResult{h}}
}

// Latencies fall into bins 1% apart, bin g holding exp((ar1G0+g)·step) ns,
// from 1 us to 100 ms.
const ar1Step = 0.01

var (
	ar1G0  = int(math.Round(math.Log(1_000) / ar1Step))
	ar1Exp = func() []int64 {
		var out []int64
		for g := ar1G0; float64(g)*ar1Step <= math.Log(1e8); g++ {
			out = append(out, int64(math.Exp(float64(g)*ar1Step)))
		}
		return out
	}()
	// ar1Norm are standard normal deviates at evenly spaced probabilities,
	// drawn from uniformly: a normal sample at the cost of an index.
	ar1Norm = func() []float64 {
		out := make([]float64, 1<<14)
		for i := range out {
			out[i] = stats.NormalQuantile((float64(i) + 0.5) / float64(len(out)))
		}
		return out
	}()
)

// ar1Bins turns counts per bin (from bin lo on) into a histogram.
func ar1Bins(counts []uint64, lo int) record.Bins {
	b := make(record.Bins, 0, len(counts)-lo)
	for g := lo; g < len(counts); g++ {
		if c := counts[g]; c > 0 {
			b = append(b, record.Bin{V: ar1Exp[g], N: c})
		}
	}
	return b
}

// Two runs of one autocorrelated process differ by more than their
// requests' spread suggests: the level of a whole run wanders. Verdicts
// that take each request as independent call such runs slower or faster
// most of the time; the block bootstrap over seconds must call them within
// noise in at least 95% of seeds, and still call a 10% slower run slower
// in at least 90%. The threshold is 0, so the verdict rests on the test
// alone, at compare's default 95% confidence.
func TestAR1VerdictsHoldTheirLevel(t *testing.T) {
	seeds := 200
	if raceBuild {
		// The race detector slows this arithmetic tenfold and has little
		// to look at in it: the first seeds only (the verdicts of a seed
		// do not depend on how many run).
		seeds = 40
	}
	const (
		n   = 600  // seconds per run
		k   = 50   // requests per second
		phi = 0.8  // autocorrelation of the per-second level
		sd  = 0.08 // its stationary spread, in ln(latency)
		w   = 0.35 // spread of requests within a second, in ln(latency)
	)
	if testing.Short() {
		t.Skip("seeds of three 600-second runs")
	}
	start := time.Now()
	o := CompareOptions{ThresholdPct: 0, Alpha: 1 - stats.DefaultConfidence}
	figures := []string{"lat mean", "lat p50", "lat p99", "lat p99.9"}
	within := map[string]int{}
	slower := map[string]int{}
	methods := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan int)
	// Seeds are independent: spread them over the CPUs.
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range next {
				seed := uint64(s) * 7919
				a := ar1Run(seed, n, k, phi, sd, w, 1)
				same := ar1Run(seed+1, n, k, phi, sd, w, 1)
				worse := ar1Run(seed+2, n, k, phi, sd, w, 1.1)
				for _, c := range []struct {
					b     PhaseData
					count map[string]int
					want  string
				}{{same, within, WithinNoise}, {worse, slower, Slower}} {
					cmp := Compare([]PhaseData{a}, []PhaseData{c.b}, o)
					mu.Lock()
					for _, f := range cmp.Phases[0].Ops[0].Figures {
						if f.Verdict == c.want {
							c.count[f.Name]++
						}
						methods[f.Name] = f.Method
					}
					mu.Unlock()
				}
			}
		}()
	}
	for s := range seeds {
		next <- s
	}
	close(next)
	wg.Wait()
	var report []string
	for _, f := range figures {
		report = append(report, fmt.Sprintf("%s: same process within noise %d/%d, 10%% slower called slower %d/%d (%s)",
			f, within[f], seeds, slower[f], seeds, methods[f]))
	}
	t.Logf("%d seeds in %v:\n%s", seeds, time.Since(start).Round(time.Millisecond), strings.Join(report, "\n"))
	for _, f := range figures {
		if within[f] < seeds*95/100 {
			t.Errorf("%s: two runs of the same process called within noise in %d of %d seeds, want at least 95%%", f, within[f], seeds)
		}
		// Thirty requests past p99.9 in a run are too few to see a 10%
		// shift of it; every other figure must see it.
		if f != "lat p99.9" && slower[f] < seeds*90/100 {
			t.Errorf("%s: a 10%% slower run called slower in %d of %d seeds, want at least 90%%", f, slower[f], seeds)
		}
	}
}

// Runs too short for a block bootstrap keep the tests of single requests,
// which say what they assume, and the comparison says why.
func TestShortRunsFallBack(t *testing.T) {
	a, b := ar1Run(1, 10, 1200, 0.8, 0.08, 0.35, 1), ar1Run(2, 10, 1200, 0.8, 0.08, 0.35, 1.5)
	cmp := Compare([]PhaseData{a}, []PhaseData{b}, CompareOptions{ThresholdPct: 5})
	op := cmp.Phases[0].Ops[0]
	if len(op.Notes) != 1 || !strings.Contains(op.Notes[0], "10 vs 10 seconds are too few for a block bootstrap") {
		t.Errorf("notes %q", op.Notes)
	}
	for _, f := range op.Figures {
		if f.Unit == "ns" && (!strings.Contains(f.Method, "assumes independent requests") || f.Verdict == Untested) {
			t.Errorf("%s: %s (%s)", f.Name, f.Verdict, f.Method)
		}
	}
}
