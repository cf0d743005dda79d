package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
)

// migrations[i] brings a catalog from schema version i to i+1; a new
// catalog runs them all. Each statement is written for both SQLite and
// PostgreSQL. Tables are prefixed sb_ so a team's PostgreSQL database can
// hold other tables beside them.
var migrations = [][]string{
	// 1: runs, their labels, and every figure of every phase per
	// operation, totals (host "") and per host.
	{
		`CREATE TABLE sb_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
		`CREATE TABLE sb_runs (
			run_id TEXT PRIMARY KEY, name TEXT NOT NULL, status TEXT NOT NULL,
			finished INTEGER NOT NULL, started_ns BIGINT NOT NULL, ended_ns BIGINT NOT NULL,
			storbench TEXT NOT NULL, fio TEXT NOT NULL, command TEXT NOT NULL, path TEXT NOT NULL,
			kernel TEXT NOT NULL, fs_type TEXT NOT NULL, mount_options TEXT NOT NULL, devices TEXT NOT NULL,
			s3_endpoint TEXT NOT NULL, s3_server TEXT NOT NULL, hosts INTEGER NOT NULL,
			indexed_ns BIGINT NOT NULL)`,
		`CREATE TABLE sb_labels (run_id TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (run_id, key))`,
		`CREATE TABLE sb_figures (run_id TEXT NOT NULL, phase TEXT NOT NULL, op TEXT NOT NULL, host TEXT NOT NULL,
			figure TEXT NOT NULL, value DOUBLE PRECISION NOT NULL, PRIMARY KEY (run_id, phase, op, host, figure))`,
	},
	// 2: indexes for the queries over many runs: a figure across runs
	// (trend, check), runs by label and by date.
	{
		`CREATE INDEX sb_figures_by_figure ON sb_figures (phase, op, figure, host)`,
		`CREATE INDEX sb_labels_by_value ON sb_labels (key, value)`,
		`CREATE INDEX sb_runs_by_start ON sb_runs (started_ns)`,
	},
	// 3: what a probe of a run's S3 endpoint found (--probe): each
	// feature's result.
	{
		`CREATE TABLE sb_s3_features (run_id TEXT NOT NULL, feature TEXT NOT NULL, result TEXT NOT NULL, PRIMARY KEY (run_id, feature))`,
	},
	// 4: the limits each run was given (--limit, a suite's limits:) and
	// the verdicts it reached, in the run's order (seq); value and passed
	// are NULL for a figure not measured. Runs indexed before have none
	// kept until added again.
	{
		`CREATE TABLE sb_limits (run_id TEXT NOT NULL, seq INTEGER NOT NULL, phase TEXT NOT NULL, limit_text TEXT NOT NULL,
			unit TEXT NOT NULL, value DOUBLE PRECISION, passed INTEGER, PRIMARY KEY (run_id, seq))`,
	},
	// 5: the limits of their own the hosts reached in each completed
	// phase (issue 42): whose limit a figure may be.
	{
		`CREATE TABLE sb_client_limits (run_id TEXT NOT NULL, phase TEXT NOT NULL, host TEXT NOT NULL, kind TEXT NOT NULL,
			verdict TEXT NOT NULL, PRIMARY KEY (run_id, phase, host, verdict))`,
	},
}

// runTables are the tables that hold a run's rows in a catalog of schema
// version v: what replacing or removing a run deletes.
func runTables(v int) []string {
	tables := []string{"sb_figures", "sb_labels", "sb_runs"}
	if v >= 3 {
		tables = append(tables, "sb_s3_features")
	}
	if v >= 4 {
		tables = append(tables, "sb_limits")
	}
	if v >= 5 {
		tables = append(tables, "sb_client_limits")
	}
	return tables
}

// migrate brings the catalog to SchemaVersion, refusing one it cannot
// read: a file that is not a storbench catalog, or a newer schema.
func (c *Catalog) migrate(ctx context.Context) error {
	return c.migrateTo(ctx, SchemaVersion)
}

// migrateTo brings the catalog to version target (tests make old
// catalogs with it).
func (c *Catalog) migrateTo(ctx context.Context, target int) error {
	v, err := c.version(ctx, c.db)
	if err != nil {
		return err
	}
	if v == target {
		c.schema = v
		return nil
	}
	if v > SchemaVersion {
		return c.newer(v)
	}
	// Migrations run in one transaction that holds the catalog's write
	// lock, so two storbench processes opening a new catalog at once do
	// not both create it.
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return c.openErr(err)
	}
	defer tx.Rollback()
	if c.pg {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7723519)`); err != nil {
			return c.openErr(err)
		}
	}
	if v, err = c.version(ctx, tx); err != nil {
		return err
	}
	if v > SchemaVersion {
		return c.newer(v)
	}
	for i := v; i < target; i++ {
		for _, stmt := range migrations[i] {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("catalog %s: migrating from schema %d: %v", c.where, i, c.clean(err))
			}
		}
	}
	if _, err := tx.ExecContext(ctx, c.q(`DELETE FROM sb_meta WHERE key = ?`), "schema_version"); err != nil {
		return c.openErr(err)
	}
	if _, err := tx.ExecContext(ctx, c.q(`INSERT INTO sb_meta (key, value) VALUES (?, ?)`), "schema_version", strconv.Itoa(target)); err != nil {
		return c.openErr(err)
	}
	if err := tx.Commit(); err != nil {
		return c.openErr(err)
	}
	c.schema = target
	return nil
}

func (c *Catalog) newer(v int) error {
	return fmt.Errorf("catalog %s has schema version %d, newer than this storbench reads (up to %d): use the storbench that wrote it, or another catalog (--catalog)", c.where, v, SchemaVersion)
}

// openErr words an error met while opening the catalog: a file that is
// not a database says so.
func (c *Catalog) openErr(err error) error {
	if err == nil {
		return nil
	}
	msg := scrub(err.Error())
	if strings.Contains(msg, "not a database") || strings.Contains(msg, "malformed") {
		return fmt.Errorf("catalog %s is not a storbench catalog or is damaged (%s): it was left as it is; move it away or give another with --catalog", c.where, msg)
	}
	return fmt.Errorf("catalog %s: %s", c.where, msg)
}

// querier is what both *sql.DB and *sql.Tx offer.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// version reads the catalog's schema version: 0 for a new, empty one.
func (c *Catalog) version(ctx context.Context, db querier) (int, error) {
	var n int
	var err error
	if c.pg {
		err = db.QueryRowContext(ctx, `SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'sb_meta'`).Scan(&n)
	} else {
		err = db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'sb_meta'`).Scan(&n)
	}
	if err != nil {
		return 0, c.openErr(err)
	}
	if n == 0 {
		if !c.pg {
			// A SQLite file with tables of its own is someone else's
			// database: never add ours to it.
			var tables int
			if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master`).Scan(&tables); err != nil {
				return 0, c.openErr(err)
			}
			if tables > 0 {
				return 0, fmt.Errorf("catalog %s is a SQLite database but not a storbench catalog: it was left as it is; give another with --catalog", c.where)
			}
		}
		return 0, nil
	}
	var s string
	if err := db.QueryRowContext(ctx, c.q(`SELECT value FROM sb_meta WHERE key = ?`), "schema_version").Scan(&s); err != nil {
		return 0, fmt.Errorf("catalog %s has no schema version (%v): it was left as it is; move it away or give another with --catalog", c.where, c.clean(err))
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 {
		return 0, fmt.Errorf("catalog %s has schema version %q, which no storbench writes: it was left as it is", c.where, s)
	}
	return v, nil
}
