package catalog

import (
	"math/rand/v2"
	"testing"
)

// simFigures draws one run's figures: four operations of three phases,
// throughput around its mean with run-to-run coefficient of variation
// noise, latency likewise; scale multiplies throughput and divides
// latency (0.9: a run 10% slower in everything).
func simFigures(rng *rand.Rand, noise, scale float64) []Figure {
	var out []Figure
	draw := func(mean float64) float64 { return mean * (1 + noise*rng.NormFloat64()) }
	add := func(phase, op string, bw, rate, lat float64) {
		r := draw(rate) * scale
		out = append(out, Figure{Phase: phase, Op: op, Name: FigRate, Value: r})
		if bw > 0 {
			out = append(out, Figure{Phase: phase, Op: op, Name: FigBW, Value: r * bw / rate})
		}
		l := draw(lat) / scale
		out = append(out,
			Figure{Phase: phase, Op: op, Name: FigMean, Value: l},
			Figure{Phase: phase, Op: op, Name: FigP50, Value: 0.9 * l},
			Figure{Phase: phase, Op: op, Name: FigP99, Value: draw(3*lat) / scale},
			Figure{Phase: phase, Op: op, Name: FigP999, Value: draw(6*lat) / scale},
			Figure{Phase: phase, Op: op, Name: FigErrors, Value: 0})
	}
	add("seq-read", "read", 2e9, 2000, 4e6)
	add("rand-write", "write", 4e8, 1e5, 3e5)
	add("md", "create", 0, 5e4, 2e4)
	add("md", "stat", 0, 2e5, 5e3)
	return out
}

// check's power and its false alarms, as compare's are tested: a
// baseline of 10 runs whose figures vary from run to run by 2% (the
// spread of repeated runs on one system), and a run drawn from the same
// process, or from one 10% slower. The run from the same process must
// pass (no figure worse) in at least 95% of 200 seeds, and the slower run
// must fail in at least 90%, with the default threshold (5%) and alpha.
func TestCheckPower(t *testing.T) {
	const seeds, baseRuns, noise = 200, 10, 0.02
	o := CheckOptions{ThresholdPct: 5}
	passed, caught, caughtOne := 0, 0, 0
	for s := range seeds {
		rng := rand.New(rand.NewPCG(uint64(s), 0xc4ec))
		base := make([][]Figure, baseRuns)
		for i := range base {
			base[i] = simFigures(rng, noise, 1)
		}
		same, _ := CheckFigures(simFigures(rng, noise, 1), base, o)
		if len(same) != 22 {
			t.Fatalf("%d figures checked, want 22", len(same))
		}
		if worse(same) == 0 {
			passed++
		}
		slower, _ := CheckFigures(simFigures(rng, noise, 0.9), base, o)
		if worse(slower) > 0 {
			caught++
		}
		// One figure alone 10% slower (the sequential read's
		// throughput): told, not required, as Bonferroni's bound over 22
		// figures is wide for one of them.
		one := simFigures(rng, noise, 1)
		for i := range one {
			if one[i].Phase == "seq-read" && (one[i].Name == FigRate || one[i].Name == FigBW) {
				one[i].Value *= 0.9
			}
		}
		if f, _ := CheckFigures(one, base, o); worse(f) > 0 {
			caughtOne++
		}
	}
	t.Logf("same process passed in %d of %d seeds; 10%% slower caught in %d of %d; one figure 10%% slower caught in %d of %d",
		passed, seeds, caught, seeds, caughtOne, seeds)
	if passed < seeds*95/100 {
		t.Errorf("a run of the baseline's own process passed in %d of %d seeds, want at least 95%%", passed, seeds)
	}
	if caught < seeds*90/100 {
		t.Errorf("a run 10%% slower was caught in %d of %d seeds, want at least 90%%", caught, seeds)
	}
}

func worse(figs []CheckedFigure) int {
	n := 0
	for _, f := range figs {
		if f.Verdict == Worse {
			n++
		}
	}
	return n
}
