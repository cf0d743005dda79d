package catalog

import (
	"context"
	"database/sql"
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

// Limit is one limit a run was given on one of its phases (--limit, a
// suite's limits:) and the verdict the run reached on it, as its
// summary.json keeps it: Value and Passed are absent for a figure not
// measured.
type Limit struct {
	Phase string `json:"phase"`
	results.LimitResult
}

// limitsOf lists the limits of every phase of a run, in its order.
func limitsOf(sum *results.Summary) []Limit {
	var out []Limit
	for _, p := range sum.Phases {
		for _, l := range p.Limits {
			out = append(out, Limit{Phase: p.Name, LimitResult: l})
		}
	}
	return out
}

// putLimits writes a run's limits in transaction tx (a catalog of an
// older schema has no table for them).
func (c *Catalog) putLimits(ctx context.Context, tx *sql.Tx, runID string, ls []Limit) error {
	if c.schema < 4 {
		return nil
	}
	for i, l := range ls {
		var passed *int
		if l.Passed != nil {
			p := 0
			if *l.Passed {
				p = 1
			}
			passed = &p
		}
		if _, err := tx.ExecContext(ctx, c.q(`INSERT INTO sb_limits (run_id, seq, phase, limit_text, unit, value, passed) VALUES (?, ?, ?, ?, ?, ?, ?)`),
			runID, i, l.Phase, l.Limit, l.Unit, l.Value, passed); err != nil {
			return err
		}
	}
	return nil
}

// Limits returns the limits a run was given and the verdicts it reached,
// in the run's order: none for a run without limits, or one indexed by
// a storbench that kept none (add its folder again).
func (c *Catalog) Limits(ctx context.Context, runID string) ([]Limit, error) {
	rows, err := c.db.QueryContext(ctx, c.q(`SELECT phase, limit_text, unit, value, passed FROM sb_limits WHERE run_id = ? ORDER BY seq`), runID)
	if err != nil {
		return nil, c.writeErr(err)
	}
	defer rows.Close()
	var out []Limit
	for rows.Next() {
		var l Limit
		var passed sql.NullInt64
		if err := rows.Scan(&l.Phase, &l.Limit, &l.Unit, &l.Value, &passed); err != nil {
			return nil, c.writeErr(err)
		}
		if passed.Valid {
			p := passed.Int64 != 0
			l.Passed = &p
		}
		out = append(out, l)
	}
	return out, c.writeErr(rows.Err())
}
