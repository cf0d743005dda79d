package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// figureBatch is how many figures one INSERT writes: few round trips
// to PostgreSQL, and well under SQLite's limit of bound parameters.
const figureBatch = 200

// putFigures inserts a run's figures in batches; a figure listed twice
// (two phases of one name) keeps its last value.
func (c *Catalog) putFigures(ctx context.Context, tx *sql.Tx, runID string, figs []Figure) error {
	type key struct{ phase, op, host, name string }
	seen := make(map[key]int, len(figs))
	uniq := make([]Figure, 0, len(figs))
	for _, f := range figs {
		k := key{f.Phase, f.Op, f.Host, f.Name}
		if i, ok := seen[k]; ok {
			uniq[i] = f
			continue
		}
		seen[k] = len(uniq)
		uniq = append(uniq, f)
	}
	for start := 0; start < len(uniq); start += figureBatch {
		batch := uniq[start:min(start+figureBatch, len(uniq))]
		var b strings.Builder
		b.WriteString(`INSERT INTO sb_figures (run_id, phase, op, host, figure, value) VALUES `)
		args := make([]any, 0, 6*len(batch))
		for i, f := range batch {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(?, ?, ?, ?, ?, ?)")
			args = append(args, runID, f.Phase, f.Op, f.Host, f.Name, f.Value)
		}
		if _, err := tx.ExecContext(ctx, c.q(b.String()), args...); err != nil {
			return err
		}
	}
	return nil
}

// writeErr words an error of writing the catalog.
func (c *Catalog) writeErr(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("catalog %s: %s", c.where, scrub(err.Error()))
}

// Figures returns a run's figures: every phase's, per operation, totals
// (Host "") and per host, in phase, op, host and figure order.
func (c *Catalog) Figures(ctx context.Context, runID string) ([]Figure, error) {
	rows, err := c.db.QueryContext(ctx, c.q(`SELECT phase, op, host, figure, value FROM sb_figures WHERE run_id = ? ORDER BY phase, op, host, figure`), runID)
	if err != nil {
		return nil, c.writeErr(err)
	}
	defer rows.Close()
	var out []Figure
	for rows.Next() {
		var f Figure
		if err := rows.Scan(&f.Phase, &f.Op, &f.Host, &f.Name, &f.Value); err != nil {
			return nil, c.writeErr(err)
		}
		out = append(out, f)
	}
	return out, c.writeErr(rows.Err())
}

// putMany writes many records in one transaction (a bulk load: tests
// and benchmarks build large catalogs with it).
func (c *Catalog) putMany(ctx context.Context, recs []*Record) error {
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return c.writeErr(err)
	}
	defer tx.Rollback()
	for _, rec := range recs {
		if err := c.putTx(ctx, tx, rec); err != nil {
			return err
		}
	}
	return c.writeErr(tx.Commit())
}
