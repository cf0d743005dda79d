package catalog

import (
	"context"
	"fmt"
	"math"

	"github.com/storbench/storbench/internal/analyze"
	"github.com/storbench/storbench/internal/exit"
)

// NoGroupError is a group of compare (Side 0: before, 1: after) whose
// query matched no completed run.
type NoGroupError struct {
	Side  int
	Query string
	Where string
}

func (e *NoGroupError) Error() string {
	return fmt.Sprintf("%s matches no completed run in %s (see storbench runs)", e.Query, e.Where)
}

// CompareGroups compares the runs qb matches with those qa matches, each
// run one value of every figure, through the test check gives its
// verdict by (JudgeGroups), so compare --a/--b, serve's compare page and
// check judge the same groups alike. One run on each side has no spread
// across runs: the two results folders are compared as compare A B
// does, as check does with a baseline of one run, and a note says so.
func (c *Catalog) CompareGroups(ctx context.Context, qa, qb Query, o CheckOptions) (*analyze.Comparison, error) {
	var runs [2][]Run
	var figs [2][][]Figure
	for i, q := range []Query{qa, qb} {
		r, f, err := c.GroupFigures(ctx, q, "")
		if err != nil {
			return nil, err
		}
		if len(r) == 0 {
			return nil, &NoGroupError{Side: i, Query: q.String(), Where: c.Where()}
		}
		runs[i], figs[i] = r, f
	}
	before, after := fmt.Sprintf("%s (%d runs)", qa, len(runs[0])), fmt.Sprintf("%s (%d runs)", qb, len(runs[1]))
	if len(runs[0]) == 1 && len(runs[1]) == 1 {
		cmp, err := analyze.CompareFolders(runs[0][0].Path, runs[1][0].Path, analyze.CompareOptions{ThresholdPct: o.ThresholdPct, Alpha: o.alpha()})
		if err != nil {
			return nil, exit.With(exit.BadInput, fmt.Errorf("%v (its folder moved? add it again with storbench catalog add)", err))
		}
		cmp.Before, cmp.After = before, after
		cmp.Notes = append(cmp.Notes, fmt.Sprintf("one run on each side (%s, %s): compared as storbench compare does, their per-second series giving the noise", runs[0][0].RunID, runs[1][0].RunID))
		return cmp, nil
	}
	judged, _ := JudgeGroups(figs[0], figs[1], o)
	cmp := groupComparison(judged, o)
	cmp.Before, cmp.After = before, after
	return cmp, nil
}

// groupFigureNames are the figures as compare names them, with units.
var groupFigureNames = map[string][2]string{
	FigRate: {"ops/s", "ops/s"}, FigBW: {"throughput", "B/s"}, FigMean: {"lat mean", "ns"},
	FigP50: {"lat p50", "ns"}, FigP99: {"lat p99", "ns"}, FigP999: {"lat p99.9", "ns"},
}

// groupVerdicts are check's verdicts in compare's words.
var groupVerdicts = map[string]string{Worse: analyze.Slower, Better: analyze.Faster, WithinNoise: analyze.WithinNoise, Untested: analyze.Untested}

// groupComparison lays judged figures (sorted by phase and operation) out
// as compare shows them; a phase's iterations are its groups' runs.
func groupComparison(figs []CheckedFigure, o CheckOptions) *analyze.Comparison {
	tested := 0
	for _, f := range figs {
		if f.Verdict != Untested {
			tested++
		}
	}
	cmp := &analyze.Comparison{ThresholdPct: o.ThresholdPct, Confidence: 1 - o.alpha()}
	for _, f := range figs {
		if n := len(cmp.Phases); n == 0 || cmp.Phases[n-1].Name != f.Phase {
			cmp.Phases = append(cmp.Phases, analyze.PhaseComparison{Name: f.Phase})
		}
		p := &cmp.Phases[len(cmp.Phases)-1]
		p.Iterations = [2]int{max(p.Iterations[0], f.N), max(p.Iterations[1], f.Runs)}
		if n := len(p.Ops); n == 0 || p.Ops[n-1].Op != f.Op {
			p.Ops = append(p.Ops, analyze.OpComparison{Op: f.Op})
		}
		op := &p.Ops[len(p.Ops)-1]
		name := groupFigureNames[f.Name]
		g := analyze.Figure{Name: name[0], Unit: name[1], Before: f.Mean, After: f.Value, Delta: f.Value - f.Mean, RelPct: f.RelPct,
			Verdict: groupVerdicts[f.Verdict]}
		g.Method = fmt.Sprintf("Student's t on %d vs %d runs (pooled spread, Bonferroni over %d figures)", f.N, f.Runs, tested)
		if f.Verdict == Untested {
			g.Method = fmt.Sprintf("one run on each side (%d vs %d): no spread across runs", f.N, f.Runs)
		} else if f.Mean != 0 {
			g.Method += fmt.Sprintf(": noise bound ±%.1f%%", 100*math.Abs(f.Bound/f.Mean))
		}
		op.Figures = append(op.Figures, g)
	}
	return cmp
}
