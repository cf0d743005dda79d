package cli

import (
	"context"
	"fmt"

	"github.com/storbench/storbench/internal/analyze"
	"github.com/storbench/storbench/internal/catalog"
)

// runCompareGroups compares two groups of the catalog's runs: each run's
// phases, read from its results folder, are one iteration of its group,
// so compare's tests across iterations judge the groups.
func runCompareGroups(ctx context.Context, st *State, o CompareOptions) error {
	if err := o.check(); err != nil {
		return err
	}
	if len(o.A) == 0 || len(o.B) == 0 {
		return usageErr("compare groups: give both --a QUERY and --b QUERY (--a label=tuning=default --b label=tuning=tuned)")
	}
	qa, err := parseQuery(st, "--a", o.A)
	if err != nil {
		return err
	}
	qb, err := parseQuery(st, "--b", o.B)
	if err != nil {
		return err
	}
	c, err := o.Catalog.query(ctx, st)
	if err != nil {
		return err
	}
	defer c.Close()
	a, na, err := groupPhases(ctx, c, "--a", qa)
	if err != nil {
		return err
	}
	b, nb, err := groupPhases(ctx, c, "--b", qb)
	if err != nil {
		return err
	}
	cmp := analyze.Compare(a, b, analyze.CompareOptions{ThresholdPct: o.Threshold, Alpha: 1 - o.Confidence/100})
	cmp.Before = fmt.Sprintf("%s (%d runs)", qa, na)
	cmp.After = fmt.Sprintf("%s (%d runs)", qb, nb)
	return o.show(st, cmp, cmp.Before, cmp.After)
}

// groupPhases reads the phases of every completed run a query matches.
// A run whose folder cannot be read is bad input naming it: the folders
// are the source of truth, and a comparison without some of them would
// not say what it compares.
func groupPhases(ctx context.Context, c *catalog.Catalog, flag string, q catalog.Query) ([]analyze.PhaseData, int, error) {
	asked := q.String()
	q.Status = "completed"
	runs, err := c.Runs(ctx, q)
	if err != nil {
		return nil, 0, err
	}
	if len(runs) == 0 {
		return nil, 0, usageErr("%s %s matches no completed run in %s (see storbench runs)", flag, asked, c.Where())
	}
	var out []analyze.PhaseData
	for _, r := range runs {
		_, phases, err := analyze.ReadPhases(r.Path)
		if err != nil {
			return nil, 0, usageErr("%s: run %s: %v (its folder moved? add it again with storbench catalog add)", flag, r.ID, err)
		}
		out = append(out, phases...)
	}
	return out, len(runs), nil
}
