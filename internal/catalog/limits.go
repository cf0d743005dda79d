package catalog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/storbench/storbench/internal/figures"
	"github.com/storbench/storbench/internal/results"
)

// JudgeLimits judges a run's figures (Figures: totals, Host "") against
// limits, as a run judges its own (results.LimitResult): a figure the
// run's operation lacks was not measured, and has no value or verdict. A
// limit on a phase the run does not have, or an operation its phase does
// not record, is an error naming the figures it has: a mistyped limit
// would otherwise pass as never measured.
func JudgeLimits(figs []Figure, ls []figures.Limit) ([]results.LimitResult, error) {
	var out []results.LimitResult
	for _, l := range ls {
		var phase, op bool
		lr := results.LimitResult{Limit: l.String(), Unit: figures.Unit(l.Ref.Name)}
		for _, f := range figs {
			if f.Host != "" || f.Phase != l.Ref.Phase {
				continue
			}
			phase = true
			if f.Op != l.Ref.Op {
				continue
			}
			op = true
			if f.Name == l.Ref.Name {
				v, met := f.Value, l.Met(f.Value)
				lr.Value, lr.Passed = &v, &met
			}
		}
		switch {
		case !phase:
			return nil, fmt.Errorf("limit %s: the run has no phase %s: its phases are %s", l, l.Ref.Phase, strings.Join(phasesOf(figs), ", "))
		case !op:
			return nil, fmt.Errorf("limit %s: phase %s has no operation %s: its operations are %s", l, l.Ref.Phase, l.Ref.Op, strings.Join(opsOf(figs, l.Ref.Phase), ", "))
		}
		out = append(out, lr)
	}
	return out, nil
}

func phasesOf(figs []Figure) []string {
	var out []string
	for _, f := range figs {
		if !slices.Contains(out, f.Phase) {
			out = append(out, f.Phase)
		}
	}
	return out
}

func opsOf(figs []Figure, phase string) []string {
	var out []string
	for _, f := range figs {
		if f.Phase == phase && !slices.Contains(out, f.Op) {
			out = append(out, f.Op)
		}
	}
	return out
}
