package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/storbench/storbench/internal/catalog"
	"github.com/storbench/storbench/internal/report"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/safetext"
)

// isCheckQuery says check's RUN argument is a catalog query (KEY=VALUE
// terms), not a run id (which holds no '=') or a results folder.
func isCheckQuery(arg string) bool {
	if _, err := os.Stat(filepath.Join(arg, "run.json")); err == nil {
		return false
	}
	return strings.Contains(arg, "=")
}

// checkQueryLimits gates the runs a catalog query matches on limits:
// --limits, and with --own-limits the verdicts each run reached on its
// own. A query that matches no run is bad input: the gate would pass
// having judged nothing.
func checkQueryLimits(ctx context.Context, st *State, c *catalog.Catalog, o CheckOptions, arg string) error {
	if len(o.Baseline) > 0 {
		return usageErr("check %s: a query is judged on limits alone; give one run (a run id or a results folder) to check against --baseline", arg)
	}
	q, err := parseQuery(st, "check", []string{arg})
	if err != nil {
		return err
	}
	runs, err := c.Runs(ctx, q)
	if err != nil {
		return err
	}
	if len(runs) == 0 {
		return usageErr("check: the query %s matches no run in %s (see storbench runs)", q, c.Where())
	}
	limitsErr, err := checkLimits(ctx, st, c, o, runs, true)
	if err != nil {
		return err
	}
	return limitsErr
}

// runLimits are one run's limits as check judged them.
type runLimits struct {
	Run    string                `json:"run"`
	Limits []results.LimitResult `json:"limits"`
}

// checkLimits judges runs against --limits (their figures in the catalog)
// and --own-limits (the verdicts the catalog kept), and prints them (a
// query's runs as a list in JSON); limitsErr is the check's failure when
// one was crossed or not measured, err bad input: a limit on a figure a
// run lacks, or --own-limits on runs none of which was given limits.
func checkLimits(ctx context.Context, st *State, c *catalog.Catalog, o CheckOptions, runs []catalog.Run, query bool) (limitsErr, err error) {
	if len(o.limits) == 0 && !o.OwnLimits {
		return nil, nil
	}
	judged := make([]runLimits, 0, len(runs))
	own := 0
	for _, run := range runs {
		rl, n, err := judgeRun(ctx, c, o, run)
		if err != nil {
			return nil, err
		}
		own += n
		judged = append(judged, rl)
	}
	if o.OwnLimits && own == 0 {
		return nil, usageErr("check --own-limits: none of the %d runs was given limits when it ran (or it was indexed by a storbench that kept none: add its folder again with storbench catalog add)", len(runs))
	}
	switch {
	case o.JSON && query:
		err = printJSONValue(st.Stdout, judged)
	case o.JSON:
		err = printJSONValue(st.Stdout, judged[0])
	default:
		for _, rl := range judged {
			fmt.Fprintf(st.Stdout, "run %s against %d limits\n", safetext.Escape(rl.Run), len(rl.Limits))
			report.LimitsText(st.Stdout, &results.PhaseSummary{Limits: rl.Limits})
		}
	}
	return limitsFailure(o, judged), err
}

// judgeRun judges one run: its own limits (with --own-limits; n counts
// them), then --limits on its figures.
func judgeRun(ctx context.Context, c *catalog.Catalog, o CheckOptions, run catalog.Run) (rl runLimits, n int, err error) {
	rl.Run = run.RunID
	if o.OwnLimits {
		own, err := c.Limits(ctx, run.RunID)
		if err != nil {
			return rl, 0, err
		}
		for _, l := range own {
			rl.Limits = append(rl.Limits, l.LimitResult)
		}
		n = len(own)
	}
	if len(o.limits) > 0 {
		figs, err := c.Figures(ctx, run.RunID)
		if err != nil {
			return rl, 0, err
		}
		lrs, err := catalog.JudgeLimits(figs, o.limits)
		if err != nil {
			return rl, 0, usageErr("check: run %s: %v", run.RunID, err)
		}
		rl.Limits = append(rl.Limits, lrs...)
	}
	return rl, n, nil
}

// limitsFailure is the check's failure when a run did not keep a limit,
// crossed or not measured: exit 4, or --fail-code when given.
func limitsFailure(o CheckOptions, judged []runLimits) error {
	var runs []string
	for _, rl := range judged {
		var notMet []string
		for _, l := range rl.Limits {
			if !l.Met() {
				notMet = append(notMet, l.Limit+" ("+report.LimitVerdict(l)+")")
			}
		}
		if len(notMet) > 0 {
			runs = append(runs, fmt.Sprintf("run %s did not keep %d limits: %s", rl.Run, len(notMet), strings.Join(notMet, ", ")))
		}
	}
	if len(runs) == 0 {
		return nil
	}
	code := ExitLimit
	if o.failCode {
		code = o.FailCode
	}
	if len(judged) == 1 {
		return &ExitError{Code: code, Err: fmt.Errorf("%s", runs[0])}
	}
	return &ExitError{Code: code, Err: fmt.Errorf("%d of %d runs did not keep their limits: %s", len(runs), len(judged), strings.Join(runs, "; "))}
}
