package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/storbench/storbench/internal/analyze"
	"github.com/storbench/storbench/internal/catalog"
	"github.com/storbench/storbench/internal/figures"
	"github.com/storbench/storbench/internal/report"
	"github.com/storbench/storbench/internal/safetext"
)

// CheckOptions are the flags of `storbench check`.
type CheckOptions struct {
	Catalog    CatalogOptions
	Baseline   []string
	Threshold  float64
	Confidence float64
	FailCode   int
	JSON       bool
	// Limits are limits the run's figures must keep (--limits); failCode
	// says --fail-code was given, which they then fail with too (else
	// exit 4, as a run that crossed one).
	Limits []string
	limits []figures.Limit
	// OwnLimits judges each run by the limits it was given (--limit, a
	// suite's limits:), as the catalog kept its verdicts (--own-limits).
	OwnLimits bool
	failCode  bool
}

func newCheckCommand(st *State) *cobra.Command {
	o := CheckOptions{FailCode: ExitRegression}
	cmd := &cobra.Command{
		Use:   "check RUN --baseline QUERY | --limits LIMITS | --own-limits",
		Short: "A regression gate: fail when a run is worse than its baseline beyond noise and a threshold, or crosses a limit",
		Long: `Judges RUN (a run id in the catalog, or a results folder, which is added to
the catalog first) against the runs the --baseline QUERY matches (terms as
'storbench runs' takes them; the run itself is left out). For every
operation's throughput (rate, bw) and latency (mean, p50, p99, p99.9), a
figure is worse when it is beyond the baseline's one-sided prediction bound
(mean and spread of the baseline's runs, Student's t; Bonferroni over all the
figures checked, so a run like its baseline fails at most 100-CONFIDENCE
percent of the time) and changed by more than --threshold. With one baseline
run there is no spread to judge by: the two results are compared as
'storbench compare' does. Prints which figures are worse and by how much, and
exits 3 (--fail-code) when any is; a baseline that matches no run is bad
input (exit 2). With --limits (PHASE/OP/FIGURE<VALUE, as run's --limit), the
run's figures are judged against those limits too, or alone: one crossed, or
on a figure the run did not measure, exits 4 (--fail-code); a limit on a phase
or operation the run does not have is bad input. With --own-limits, each run
is judged by the limits it was given when it ran (--limit, a suite's limits:),
as the catalog kept its verdicts. For limits, RUN may also be a catalog query
(KEY=VALUE terms, as 'storbench runs' takes them: name=nightly,since=1d): every
run it matches is judged, and one that did not keep its limits fails the check.`,
		Example: `  storbench check results/20261121T051502Z-3fa9_nightly --baseline label=tuning=default,last=10
  storbench check 20261121T051502Z-3fa9 --baseline name=nightly --baseline since=30d --threshold 3
  storbench check 20261121T051502Z-3fa9 --limits 'randread/read/p99<5ms,md/file-create/rate>20k'
  storbench check name=nightly,since=1d --own-limits`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.failCode = cmd.Flags().Changed("fail-code")
			return runCheck(cmd.Context(), st, o, args[0])
		},
	}
	f := cmd.Flags()
	o.Catalog.AddFlags(f)
	f.StringArrayVar(&o.Baseline, "baseline", nil, "the baseline runs: query terms KEY=VALUE (repeatable, or joined with commas)")
	f.Float64Var(&o.Threshold, "threshold", 5, "smallest change (percent) called worse")
	f.Float64Var(&o.Confidence, "confidence", 95, "confidence of the noise bound, for all figures together, in percent")
	f.IntVar(&o.FailCode, "fail-code", ExitRegression, "exit with this code (1-125) when a figure is worse")
	f.BoolVar(&o.JSON, "json", false, "print the check as JSON")
	f.StringArrayVar(&o.Limits, "limits", nil, "limits the run's figures must keep, PHASE/OP/FIGURE<VALUE (also <=, >, >=), comma-separated or repeated: randread/read/p99<5ms,md/file-create/rate>20k; one crossed, or on a figure not measured, exits 4 (or --fail-code); with or without --baseline (docs/limits.md)")
	f.BoolVar(&o.OwnLimits, "own-limits", false, "judge each run by the limits it was given when it ran (--limit, a suite's limits:), as the catalog kept their verdicts; one not kept exits 4 (or --fail-code)")
	return cmd
}

func (o *CheckOptions) check() error {
	for _, v := range o.Limits {
		for _, s := range strings.Split(v, ",") {
			l, err := figures.ParseLimit(strings.TrimSpace(s))
			if err != nil {
				return usageErr("--limits: %v", err)
			}
			o.limits = append(o.limits, l)
		}
	}
	limits := len(o.limits) > 0 || o.OwnLimits
	if len(o.Baseline) == 0 && !limits {
		return usageErr("check: give the baseline with --baseline QUERY (label=tuning=default,last=10), or limits with --limits or --own-limits")
	}
	if len(o.Baseline) > 0 && limits && o.JSON {
		return usageErr("check: --json prints one check: give --baseline or --limits, and run check again for the other")
	}
	if err := checkConfidence(o.Confidence); err != nil {
		return err
	}
	if o.Threshold < 0 {
		return usageErr("--threshold must not be negative")
	}
	if o.FailCode < 1 || o.FailCode > maxFailCode {
		return usageErr("--fail-code %d: want 1 to %d (126 and above are the shell's own codes)", o.FailCode, maxFailCode)
	}
	return nil
}

func runCheck(ctx context.Context, st *State, o CheckOptions, runArg string) error {
	if err := o.check(); err != nil {
		return err
	}
	var q catalog.Query
	if len(o.Baseline) > 0 {
		var err error
		if q, err = parseQuery(st, "--baseline", o.Baseline); err != nil {
			return err
		}
	}
	c, err := o.Catalog.query(ctx, st)
	if err != nil {
		return err
	}
	defer c.Close()
	if isCheckQuery(runArg) {
		return checkQueryLimits(ctx, st, c, o, runArg)
	}
	run, err := checkedRun(ctx, c, runArg)
	if err != nil {
		return err
	}
	limitsErr, err := checkLimits(ctx, st, c, o, []catalog.Run{*run}, false)
	if err != nil || len(o.Baseline) == 0 {
		return cmp.Or(err, limitsErr)
	}
	if err := checkBaseline(ctx, st, c, o, run, q); err != nil {
		return err
	}
	return limitsErr
}

// checkBaseline judges run against the baseline runs q matches.
func checkBaseline(ctx context.Context, st *State, c *catalog.Catalog, o CheckOptions, run *catalog.Run, q catalog.Query) error {
	res, err := c.Check(ctx, run.RunID, q, catalog.CheckOptions{ThresholdPct: o.Threshold, Alpha: 1 - o.Confidence/100})
	var nb *catalog.NoBaselineError
	if errors.As(err, &nb) {
		return usageErr("%v", err)
	}
	if err != nil {
		return err
	}
	if len(res.BaselineRuns) == 1 {
		return checkAgainstOne(ctx, st, c, o, run, res.BaselineRuns[0])
	}
	if o.JSON {
		if err := printJSONValue(st.Stdout, res); err != nil {
			return err
		}
	} else {
		checkText(st.Stdout, res)
	}
	if len(res.Figures) == 0 {
		return usageErr("run %s has no figure in common with its baseline %s", run.RunID, res.Baseline)
	}
	if w := res.Worse(); len(w) > 0 {
		return &ExitError{Code: o.FailCode, Err: fmt.Errorf("run %s is worse than its baseline in %d figures: %s", run.RunID, len(w), worseList(w))}
	}
	return nil
}

// checkedRun finds the run to check: a results folder (indexed now, as it
// stands) or a run id in the catalog.
func checkedRun(ctx context.Context, c *catalog.Catalog, arg string) (*catalog.Run, error) {
	if _, err := os.Stat(filepath.Join(arg, "run.json")); err == nil {
		r, err := c.Add(ctx, arg)
		if err != nil {
			return nil, err
		}
		return r, nil
	}
	runs, err := c.Runs(ctx, catalog.Query{ID: arg})
	if err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, usageErr("check: %s is neither a results folder nor a run id in %s (see storbench runs)", arg, c.Where())
	}
	return &runs[0], nil
}

// checkAgainstOne compares the run with its one baseline run as compare
// does: the per-second series give the noise.
func checkAgainstOne(ctx context.Context, st *State, c *catalog.Catalog, o CheckOptions, run *catalog.Run, baseID string) error {
	base, err := c.Runs(ctx, catalog.Query{ID: baseID})
	if err != nil || len(base) == 0 {
		return fmt.Errorf("check: baseline run %s: %v", baseID, err)
	}
	fmt.Fprintf(st.Stderr, "check: the baseline is one run (%s): compared as storbench compare does, its per-second series giving the noise\n", baseID)
	cmp, err := analyze.CompareFolders(base[0].Path, run.Path, analyze.CompareOptions{ThresholdPct: o.Threshold, Alpha: 1 - o.Confidence/100})
	if err != nil {
		return asUsage(err)
	}
	if o.JSON {
		if err := printJSONValue(st.Stdout, cmp); err != nil {
			return err
		}
	} else {
		report.CompareText(st.Stdout, cmp)
	}
	if cmp.Slower() {
		return &ExitError{Code: o.FailCode, Err: fmt.Errorf("run %s is slower than its baseline run %s beyond noise and %.1f%%: see the figures marked slower", run.RunID, baseID, o.Threshold)}
	}
	return nil
}

func worseList(figs []catalog.CheckedFigure) string {
	var out []string
	for _, f := range figs {
		out = append(out, fmt.Sprintf("%s/%s/%s %+.1f%%", f.Phase, f.Op, f.Name, f.RelPct))
	}
	return strings.Join(out, ", ")
}

func checkText(w io.Writer, r *catalog.CheckResult) {
	r = safetext.Copy(r) // a row is one line (runs)
	fmt.Fprintf(w, "run %s against %d baseline runs (%s), threshold %.1f%%, confidence %.4g%%\n", r.Run, len(r.BaselineRuns), r.Baseline, r.ThresholdPct, 100*(1-r.Alpha))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PHASE/OP\tFIGURE\tRUN\tBASELINE MEAN\tCHANGE\tNOISE BOUND\tVERDICT")
	for _, f := range r.Figures {
		bound := "-"
		if f.Verdict != catalog.Untested && f.Mean != 0 {
			bound = fmt.Sprintf("±%.1f%%", 100*f.Bound/f.Mean)
		}
		fmt.Fprintf(tw, "%s/%s\t%s\t%s\t%s\t%+.1f%%\t%s\t%s\n", f.Phase, f.Op, f.Name, formatFigure(f.Name, f.Value), formatFigure(f.Name, f.Mean), f.RelPct, bound, f.Verdict)
	}
	tw.Flush()
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	fmt.Fprintf(w, "method: %s\n", r.Method)
	if worse := r.Worse(); len(worse) > 0 {
		fmt.Fprintf(w, "WORSE: %s\n", worseList(worse))
	} else {
		fmt.Fprintln(w, "no figure worse than the baseline beyond noise and the threshold")
	}
}
