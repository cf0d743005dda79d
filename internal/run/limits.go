package run

import (
	"fmt"
	"slices"
	"strings"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/exit"
	"github.com/storbench/storbench/internal/figures"
	"github.com/storbench/storbench/internal/results"
)

// PhaseLimits are the limits on each phase of p, in the order of its
// phases: the plan's own (--limit) on the phase by its name or its suite
// entry's, and its suite entry's (Labels.Limits). A limit that names no
// phase of the plan, or an operation its phase does not record, is bad
// input naming the figures that exist; so is one given twice. It is
// checked before anything starts, so that a mistyped limit costs no load.
func PhaseLimits(engines engine.Registry, p Plan) ([][]figures.Limit, error) {
	out := make([][]figures.Limit, len(p.Phases))
	used := make([]bool, len(p.Limits))
	for i, ph := range p.Phases {
		var group string
		if i < len(p.Labels) {
			group = p.Labels[i].Group
			for _, l := range p.Labels[i].Limits {
				l.Ref.Phase = ph.Name // the entry's name, until now
				out[i] = append(out[i], l)
			}
		}
		for j, l := range p.Limits {
			if l.Ref.Phase == ph.Name || (group != "" && l.Ref.Phase == group) {
				used[j] = true
				on := l
				on.Ref.Phase = ph.Name
				out[i] = append(out[i], on)
			}
		}
		if err := checkPhaseLimits(engines, ph, out[i]); err != nil {
			return nil, err
		}
	}
	for j, l := range p.Limits {
		if !used[j] {
			return nil, badInputf("--limit %s: the run has no phase %s: its phases are %s", l, l.Ref.Phase, phaseNames(p))
		}
	}
	return out, nil
}

// checkPhaseLimits refuses limits on ph's operations it does not record,
// and a limit given twice.
func checkPhaseLimits(engines engine.Registry, ph engine.Phase, ls []figures.Limit) error {
	names, listed := engines.OpNames(ph)
	match, known := engines.MatchOps(ph)
	for i, l := range ls {
		for _, k := range ls[:i] {
			if k.Ref == l.Ref && k.Op == l.Op && k.Value == l.Value {
				return badInputf("limit %s is given twice", l)
			}
		}
		switch {
		case listed && !slices.Contains(names, l.Ref.Op):
			return badInputf("limit %s: phase %s records no %s: its figures are %s", l, ph.Name, l.Ref.Op, figuresOf(ph.Name, names))
		case !listed && known && !match(l.Ref.Op):
			return badInputf("limit %s: phase %s records no %s", l, ph.Name, l.Ref.Op)
		}
	}
	return nil
}

// figuresOf lists the figures of phase's operations ops, for messages.
func figuresOf(phase string, ops []string) string {
	var out []string
	for _, op := range ops {
		out = append(out, phase+"/"+op+"/{"+strings.Join(figures.OpNames, ",")+"}")
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, " ")
}

func phaseNames(p Plan) string {
	var out []string
	for i, ph := range p.Phases {
		out = append(out, ph.Name)
		if i < len(p.Labels) && p.Labels[i].Group != "" && p.Labels[i].Group != ph.Name && !slices.Contains(out, p.Labels[i].Group) {
			out = append(out, p.Labels[i].Group)
		}
	}
	return strings.Join(out, ", ")
}

// judgeLimits gives ps the entries of its limits, and returns those not
// met: crossed, or on a figure not measured.
func judgeLimits(ps *results.PhaseSummary, ls []figures.Limit) []results.LimitResult {
	var notMet []results.LimitResult
	for _, l := range ls {
		lr := results.JudgeLimit(l, ps.Ops)
		ps.Limits = append(ps.Limits, lr)
		if !lr.Met() {
			notMet = append(notMet, lr)
		}
	}
	return notMet
}

// limitsError is the run's error when limits were not met, with exit 4:
// every phase ran and its results are written.
func limitsError(notMet []results.LimitResult) error {
	var crossed, absent []string
	for _, l := range notMet {
		if l.Value == nil {
			absent = append(absent, l.Limit)
		} else {
			crossed = append(crossed, l.Limit)
		}
	}
	var parts []string
	if len(crossed) > 0 {
		parts = append(parts, fmt.Sprintf("crossed %d limit(s): %s", len(crossed), strings.Join(crossed, ", ")))
	}
	if len(absent) > 0 {
		parts = append(parts, fmt.Sprintf("%d limit(s) on figures not measured, so not shown met: %s", len(absent), strings.Join(absent, ", ")))
	}
	return &Error{Code: exit.LimitCrossed, Err: fmt.Errorf("the run %s (summary.json's limits)", strings.Join(parts, "; "))}
}
