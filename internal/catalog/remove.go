package catalog

import "context"

// Remove takes the runs of these ids out of the catalog, with their
// labels, figures, limits and probes' findings, in one transaction: a
// reader sees each run whole or not at all. Their results folders are
// not touched (the folders are the source of truth: Add brings a run
// back). It returns how many runs it removed; an id not in the catalog is
// passed over.
func (c *Catalog) Remove(ctx context.Context, ids []string) (int, error) {
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, c.writeErr(err)
	}
	defer tx.Rollback()
	removed := 0
	for _, id := range ids {
		if c.pg {
			// As Put: a writer of the same run id waits.
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext($1))`, id); err != nil {
				return 0, c.writeErr(err)
			}
		}
		for _, t := range runTables(c.schema) {
			res, err := tx.ExecContext(ctx, c.q(`DELETE FROM `+t+` WHERE run_id = ?`), id)
			if err != nil {
				return 0, c.writeErr(err)
			}
			if n, _ := res.RowsAffected(); t == "sb_runs" && n > 0 {
				removed++
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, c.writeErr(err)
	}
	return removed, nil
}
