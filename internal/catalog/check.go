package catalog

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/storbench/storbench/internal/figures"
	"github.com/storbench/storbench/internal/stats"
)

// Verdicts of a checked figure.
const (
	Worse       = "worse"
	Better      = "better"
	WithinNoise = "within noise"
	Untested    = "untested"
)

// CheckedFigures are the figures check judges: throughput and latency.
// Errors are counts the baseline is often all 0 of (no spread to judge
// by), and are shown by runs instead.
var CheckedFigures = []string{FigRate, FigBW, FigMean, FigP50, FigP99, FigP999}

// CheckOptions tune Check.
type CheckOptions struct {
	// ThresholdPct is the smallest relative change (percent) called
	// worse: a smaller change beyond noise is within noise.
	ThresholdPct float64
	// Alpha is the chance, when the run is like its baseline, that any of
	// its figures is called worse (0: 0.05).
	Alpha float64
}

func (o CheckOptions) alpha() float64 { return stats.Alpha(o.Alpha) }

// CheckedFigure is one figure of the run against its baseline.
type CheckedFigure struct {
	Phase string `json:"phase"`
	Op    string `json:"op"`
	Name  string `json:"figure"`
	Unit  string `json:"unit"`
	// Value is the run's; Mean and Stddev the baseline runs', N of them.
	Value  float64 `json:"value"`
	Mean   float64 `json:"baseline_mean"`
	Stddev float64 `json:"baseline_stddev"`
	N      int     `json:"baseline_runs"`
	// Runs is how many runs Value is the mean of: 1 for check, the after
	// group's for compare's groups.
	Runs int `json:"-"`
	// RelPct is the change from the baseline's mean, in percent.
	RelPct float64 `json:"rel_pct"`
	// Bound is how far from the mean a run of the baseline's process
	// may land (the prediction bound; for a group after, how far its
	// mean may), in the figure's unit.
	Bound   float64 `json:"noise_bound"`
	Verdict string  `json:"verdict"`
}

// CheckResult is a run judged against a baseline.
type CheckResult struct {
	Run          string          `json:"run"`
	Baseline     string          `json:"baseline"`
	BaselineRuns []string        `json:"baseline_runs"`
	ThresholdPct float64         `json:"threshold_pct"`
	Alpha        float64         `json:"alpha"`
	Method       string          `json:"method"`
	Figures      []CheckedFigure `json:"figures"`
	// Notes name figures of the baseline the run did not measure.
	Notes []string `json:"notes,omitempty"`
}

// Worse lists the figures called worse.
func (r *CheckResult) Worse() []CheckedFigure {
	var out []CheckedFigure
	for _, f := range r.Figures {
		if f.Verdict == Worse {
			out = append(out, f)
		}
	}
	return out
}

type figKey struct{ phase, op, name string }

// CheckFigures judges a run's figures (totals: Host "") against those of
// the baseline's runs, one slice per run: JudgeGroups with the run as the
// after group.
func CheckFigures(run []Figure, baseline [][]Figure, o CheckOptions) ([]CheckedFigure, []string) {
	return JudgeGroups(baseline, [][]Figure{run}, o)
}

// JudgeGroups judges the figures (totals: Host "") of the after group of
// runs against those of the before group, one slice per run: check's
// regression gate and compare's groups (--a, --b) both give their
// verdicts here. A figure is worse when its change of means lies beyond
// stats.RunsTest's bound, Student's t with the runs' pooled spread at
// 1-alpha/k one-sided, where k is the figures tested (Bonferroni: a run
// or group of the before group's own process is called worse in at most
// alpha of checks, for all its figures together), and the change exceeds
// the threshold. Against one run after, the bound is the before group's
// prediction bound, mean -/+ t(1-alpha/k, n-1) * s * sqrt(1+1/n). A
// figure with one run on each side has no spread: untested.
func JudgeGroups(before, after [][]Figure, o CheckOptions) ([]CheckedFigure, []string) {
	va, vb := groupValues(before), groupValues(after)
	var keys []figKey
	for k := range vb {
		if va[k] != nil {
			keys = append(keys, k)
		}
	}
	tested := 0
	for _, k := range keys {
		if len(va[k])+len(vb[k]) >= 3 {
			tested++
		}
	}
	out := make([]CheckedFigure, 0, len(keys))
	for _, k := range keys {
		out = append(out, judge(k, va[k], vb[k], tested, o))
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Phase != b.Phase {
			return a.Phase < b.Phase
		}
		if a.Op != b.Op {
			return a.Op < b.Op
		}
		return figureOrder(a.Name) < figureOrder(b.Name)
	})
	var notes []string
	for k := range va {
		if vb[k] == nil {
			notes = append(notes, fmt.Sprintf("%s/%s/%s: in the baseline, not measured by the run", k.phase, k.op, k.name))
		}
	}
	sort.Strings(notes)
	return out, notes
}

// groupValues gathers each checked figure's values over a group's runs.
func groupValues(runs [][]Figure) map[figKey][]float64 {
	checked := map[string]bool{}
	for _, n := range CheckedFigures {
		checked[n] = true
	}
	values := map[figKey][]float64{}
	for _, figs := range runs {
		for _, f := range figs {
			if f.Host == "" && checked[f.Name] {
				k := figKey{f.Phase, f.Op, f.Name}
				values[k] = append(values[k], f.Value)
			}
		}
	}
	return values
}

// judge gives a figure its verdict; tested is how many figures are tested
// (k of the Bonferroni bound).
func judge(k figKey, before, after []float64, tested int, o CheckOptions) CheckedFigure {
	r := stats.RunsTest(before, after, o.alpha(), tested)
	cf := CheckedFigure{Phase: k.phase, Op: k.op, Name: k.name, Unit: Unit(k.name), Value: r.MeanB, Mean: r.MeanA,
		Stddev: stats.Describe(before).Stddev, N: r.NA, Runs: r.NB, Bound: r.Bound}
	if r.MeanA != 0 {
		cf.RelPct = 100 * (r.MeanB - r.MeanA) / r.MeanA
	}
	diff := r.MeanB - r.MeanA
	if !HigherIsBetter(k.name) {
		diff = -diff // positive is better
	}
	switch {
	case !r.OK:
		cf.Verdict = Untested
	case !r.Beyond() || math.Abs(cf.RelPct) < o.ThresholdPct || diff == 0:
		cf.Verdict = WithinNoise
	case diff < 0:
		cf.Verdict = Worse
	default:
		cf.Verdict = Better
	}
	return cf
}

func figureOrder(name string) int { return figures.Order(name) }

// CheckMethod says how check judges, for its output.
const CheckMethod = "one-sided prediction bound from the baseline runs' spread (Student's t, Bonferroni over the figures tested)"

// Check judges run runID against the runs q matches (the run itself left
// out). It fails when the run is not in the catalog; a baseline of no
// run is an error saying so (ErrNoBaseline).
func (c *Catalog) Check(ctx context.Context, runID string, q Query, o CheckOptions) (*CheckResult, error) {
	runFigs, err := c.Figures(ctx, runID)
	if err != nil {
		return nil, err
	}
	base, baseFigs, err := c.GroupFigures(ctx, q, runID)
	if err != nil {
		return nil, err
	}
	res := &CheckResult{Run: runID, Baseline: q.String(), ThresholdPct: o.ThresholdPct, Alpha: o.alpha(), Method: CheckMethod}
	for _, r := range base {
		res.BaselineRuns = append(res.BaselineRuns, r.RunID)
	}
	if len(baseFigs) == 0 {
		return nil, &NoBaselineError{Query: q.String()}
	}
	res.Figures, res.Notes = CheckFigures(runFigs, baseFigs, o)
	return res, nil
}

// GroupFigures reads the figures of every run q matches that finished
// and completed, the run leaveOut left out (the run checked; "" for
// none): check's baseline and each group compare judges.
func (c *Catalog) GroupFigures(ctx context.Context, q Query, leaveOut string) ([]Run, [][]Figure, error) {
	runs, err := c.Runs(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	var kept []Run
	var figs [][]Figure
	for _, r := range runs {
		if r.RunID == leaveOut || !r.Finished || r.Status != "completed" {
			continue
		}
		f, err := c.Figures(ctx, r.RunID)
		if err != nil {
			return nil, nil, err
		}
		kept, figs = append(kept, r), append(figs, f)
	}
	return kept, figs, nil
}

// NoBaselineError is a baseline query that matched no completed run
// (besides the run checked).
type NoBaselineError struct{ Query string }

func (e *NoBaselineError) Error() string {
	return fmt.Sprintf("baseline %s matches no completed run in the catalog (the run checked left out): widen the query, or list what it holds with storbench runs", e.Query)
}
