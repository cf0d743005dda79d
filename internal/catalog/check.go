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
	// RelPct is the change from the baseline's mean, in percent.
	RelPct float64 `json:"rel_pct"`
	// Bound is how far from the mean a run of the baseline's process
	// may land (the prediction bound), in the figure's unit.
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
// the baseline's runs, one slice per run. A figure is worse when it lies
// beyond the baseline's one-sided prediction bound, mean -/+
// t(1-alpha/k, n-1) * s * sqrt(1+1/n), where s is the spread of the
// baseline's runs and k the figures tested (Bonferroni: a run of the
// baseline's own process is called worse in at most alpha of checks, for
// all its figures together), and its change exceeds the threshold. A
// figure with fewer than two baseline runs has no spread: untested.
func CheckFigures(run []Figure, baseline [][]Figure, o CheckOptions) ([]CheckedFigure, []string) {
	checked := map[string]bool{}
	for _, n := range CheckedFigures {
		checked[n] = true
	}
	values := map[figKey][]float64{}
	for _, figs := range baseline {
		for _, f := range figs {
			if f.Host == "" && checked[f.Name] {
				k := figKey{f.Phase, f.Op, f.Name}
				values[k] = append(values[k], f.Value)
			}
		}
	}
	var out []CheckedFigure
	have := map[figKey]bool{}
	for _, f := range run {
		k := figKey{f.Phase, f.Op, f.Name}
		if f.Host != "" || !checked[f.Name] || values[k] == nil {
			continue
		}
		have[k] = true
		d := stats.Describe(values[k])
		cf := CheckedFigure{Phase: f.Phase, Op: f.Op, Name: f.Name, Unit: Unit(f.Name), Value: f.Value, Mean: d.Mean, Stddev: d.Stddev, N: d.N}
		if d.Mean != 0 {
			cf.RelPct = 100 * (f.Value - d.Mean) / d.Mean
		}
		out = append(out, cf)
	}
	tested := 0
	for _, cf := range out {
		if cf.N >= 2 {
			tested++
		}
	}
	for i := range out {
		out[i].Verdict = judge(&out[i], tested, o)
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
	for k := range values {
		if !have[k] {
			notes = append(notes, fmt.Sprintf("%s/%s/%s: in the baseline, not measured by the run", k.phase, k.op, k.name))
		}
	}
	sort.Strings(notes)
	return out, notes
}

// judge gives a figure its verdict; tested is how many figures are tested
// (k of the Bonferroni bound).
func judge(cf *CheckedFigure, tested int, o CheckOptions) string {
	if cf.N < 2 {
		return Untested
	}
	t := stats.StudentQuantile(1-o.alpha()/float64(tested), float64(cf.N-1))
	cf.Bound = t * cf.Stddev * math.Sqrt(1+1/float64(cf.N))
	diff := cf.Value - cf.Mean
	if !HigherIsBetter(cf.Name) {
		diff = -diff // positive is better
	}
	beyond := math.Abs(diff) > cf.Bound
	if !beyond || math.Abs(cf.RelPct) < o.ThresholdPct || diff == 0 {
		return WithinNoise
	}
	if diff < 0 {
		return Worse
	}
	return Better
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
	base, err := c.Runs(ctx, q)
	if err != nil {
		return nil, err
	}
	res := &CheckResult{Run: runID, Baseline: q.String(), ThresholdPct: o.ThresholdPct, Alpha: o.alpha(), Method: CheckMethod}
	var baseFigs [][]Figure
	for _, r := range base {
		if r.ID == runID || !r.Finished || r.Status != "completed" {
			continue
		}
		figs, err := c.Figures(ctx, r.ID)
		if err != nil {
			return nil, err
		}
		res.BaselineRuns = append(res.BaselineRuns, r.ID)
		baseFigs = append(baseFigs, figs)
	}
	if len(baseFigs) == 0 {
		return nil, &NoBaselineError{Query: q.String()}
	}
	res.Figures, res.Notes = CheckFigures(runFigs, baseFigs, o)
	return res, nil
}

// NoBaselineError is a baseline query that matched no completed run
// (besides the run checked).
type NoBaselineError struct{ Query string }

func (e *NoBaselineError) Error() string {
	return fmt.Sprintf("baseline %s matches no completed run in the catalog (the run checked left out): widen the query, or list what it holds with storbench runs", e.Query)
}
