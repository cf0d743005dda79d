package cli

import (
	"context"
	"errors"

	"github.com/storbench/storbench/internal/catalog"
)

// runCompareGroups compares two groups of the catalog's runs through the
// one test check gives its verdict by (catalog.CompareGroups): the same
// groups get the same verdict from both.
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
	cmp, err := c.CompareGroups(ctx, qa, qb, catalog.CheckOptions{ThresholdPct: o.Threshold, Alpha: 1 - o.Confidence/100})
	var ng *catalog.NoGroupError
	if errors.As(err, &ng) {
		return usageErr("%s %v", []string{"--a", "--b"}[ng.Side], err)
	}
	if err != nil {
		return err
	}
	return o.show(st, cmp, cmp.Before, cmp.After)
}
