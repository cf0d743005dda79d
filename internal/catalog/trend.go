package catalog

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/figures"
)

// FigureRef names one figure of one operation of one phase, written
// PHASE/OP/FIGURE or PHASE/OP/FIGURE@HOST (figures.Ref).
type FigureRef = figures.Ref

// ParseFigure reads PHASE/OP/FIGURE[@HOST] (figures.Parse).
func ParseFigure(s string) (FigureRef, error) { return figures.Parse(s) }

// Point is one value of a figure in one run.
type Point struct {
	RunID     string    `json:"run_id"`
	Name      string    `json:"name"`
	StartedAt time.Time `json:"started_at"`
	// Group is the value of the grouping label ("" when the run lacks it).
	Group string  `json:"group"`
	Phase string  `json:"phase"`
	Op    string  `json:"op"`
	Value float64 `json:"value"`
}

// Trend returns a figure in every run the query matches, oldest first,
// each point with the run's value of the label by (none when by is "").
// A run that did not measure the figure has no point.
func (c *Catalog) Trend(ctx context.Context, q Query, f FigureRef, by string) ([]Point, error) {
	p, err := c.plan(ctx, q)
	if err != nil {
		return nil, err
	}
	cond, args := q.where(p.Drive)
	var fc []string
	var fargs []any
	for _, x := range []struct{ col, v string }{{"f.phase", f.Phase}, {"f.op", f.Op}} {
		if strings.Contains(x.v, "*") {
			pat := strings.ReplaceAll(strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(x.v), "*", "%")
			fc = append(fc, x.col+` LIKE ? ESCAPE '\'`)
			fargs = append(fargs, pat)
		} else {
			fc = append(fc, x.col+" = ?")
			fargs = append(fargs, x.v)
		}
	}
	fc = append(fc, "f.figure = ?", "f.host = ?")
	fargs = append(fargs, f.Name, f.Host)
	runs := `SELECT r.run_id, r.name, r.started_ns FROM ` + c.from(p) + ` WHERE ` + cond
	if q.Last > 0 {
		runs += fmt.Sprintf(` ORDER BY r.started_ns DESC, r.run_id DESC LIMIT %d`, q.Last)
	}
	// SQLite keeps the runs as the outer loop of a CROSS JOIN (a run's
	// figure is then one lookup by key); PostgreSQL plans by statistics
	// and knows no CROSS JOIN with ON.
	join := "CROSS JOIN"
	if c.pg {
		join = "JOIN"
	}
	query := `SELECT m.run_id, m.name, m.started_ns, COALESCE(l.value, ''), f.phase, f.op, f.value
		FROM (` + runs + `) m
		` + join + ` sb_figures f ON f.run_id = m.run_id
		LEFT JOIN sb_labels l ON l.run_id = m.run_id AND l.key = ?
		WHERE ` + strings.Join(fc, " AND ") + `
		ORDER BY m.started_ns, m.run_id, f.phase, f.op`
	all := append(append(args, by), fargs...)
	rows, err := c.db.QueryContext(ctx, c.q(query), all...)
	if err != nil {
		return nil, c.writeErr(err)
	}
	defer rows.Close()
	var out []Point
	for rows.Next() {
		var p Point
		var start int64
		if err := rows.Scan(&p.RunID, &p.Name, &start, &p.Group, &p.Phase, &p.Op, &p.Value); err != nil {
			return nil, c.writeErr(err)
		}
		p.StartedAt = fromNs(start)
		out = append(out, p)
	}
	return out, c.writeErr(rows.Err())
}
