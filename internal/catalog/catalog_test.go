package catalog

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// genSet writes n folders: alternating tuning labels, one a day.
func genSet(t testing.TB, root string, n int) []string {
	var dirs []string
	for i := range n {
		tuning := "default"
		if i%2 == 1 {
			tuning = "tuned"
		}
		fs := "xfs"
		if i%3 == 0 {
			fs = "ext4"
		}
		dirs = append(dirs, writeGen(t, root, genRun{i: i, name: "four-corners", start: t0.Add(time.Duration(i) * 24 * time.Hour),
			labels: map[string]string{"tuning": tuning, "raid": "6"}, fs: fs, noise: 0.02, seed: 1, hosts: 1 + i%2}))
	}
	return dirs
}

// answers runs a battery of queries: what a user sees of the catalog.
func answers(t *testing.T, c *Catalog) string {
	t.Helper()
	ctx := context.Background()
	var out []any
	for _, terms := range [][]string{nil, {"label=tuning=tuned"}, {"fs=ext4,last=2"}, {"since=2026-03-03,until=2026-03-06"},
		{"mount=noatime", "device=NVMe"}, {"name=four*"}, {"hosts=2"}, {"status=unfinished"}} {
		q, err := ParseQuery(terms, t0)
		if err != nil {
			t.Fatal(err)
		}
		runs, err := c.Runs(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for i := range runs {
			runs[i].Path = filepath.Base(runs[i].Path)
		}
		out = append(out, runs)
		for _, fig := range []string{"seq-read/read/bw", "md/create/rate", "*/*/p99", "md/stat/rate@client2"} {
			f, err := ParseFigure(fig)
			if err != nil {
				t.Fatal(err)
			}
			pts, err := c.Trend(ctx, q, f, "tuning")
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, pts)
		}
		if len(runs) > 0 {
			figs, err := c.Figures(ctx, runs[0].RunID)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, figs)
		}
	}
	b, _ := json.MarshalIndent(out, "", " ")
	return string(b)
}

// The folders are the source of truth: a catalog deleted and rebuilt with
// Add (in another order, some folders twice) answers every query the same.
func TestRebuiltCatalogAnswersTheSame(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		root := t.TempDir()
		dirs := genSet(t, root, 8)
		dirs = append(dirs, writeGen(t, root, genRun{i: 99, name: "crashed", start: t0.Add(100 * time.Hour), unfinished: true, seed: 2}))
		where := b.create(t)
		c := open(t, where)
		for _, d := range dirs {
			if _, err := c.Add(t.Context(), d); err != nil {
				t.Fatal(err)
			}
		}
		before := answers(t, c)
		if !strings.Contains(before, `"status": "unfinished"`) || !strings.Contains(before, `"tuning": "tuned"`) {
			t.Fatalf("the catalog lacks what was added:\n%s", before)
		}
		c.Close()
		b.remove(t, where)
		c2 := open(t, where)
		if runs, _ := c2.Runs(t.Context(), Query{}); len(runs) != 0 {
			t.Fatalf("the catalog was not deleted: %d runs", len(runs))
		}
		all, err := Folders([]string{root})
		if err != nil {
			t.Fatal(err)
		}
		for i := len(all) - 1; i >= 0; i-- {
			for range 2 {
				if _, err := c2.Add(t.Context(), all[i]); err != nil {
					t.Fatal(err)
				}
			}
		}
		if after := answers(t, c2); after != before {
			t.Errorf("the rebuilt catalog answers differently:\nbefore:\n%s\nafter:\n%s", before, after)
		}
	})
}

// A folder added twice is one run; a folder indexed while unfinished and
// again once finished is the finished run.
func TestAddTwiceIsOnce(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		root := t.TempDir()
		c := open(t, b.create(t))
		g := genRun{i: 1, name: "x", start: t0, unfinished: true, seed: 3}
		dir := writeGen(t, root, g)
		r, err := c.Add(t.Context(), dir)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != StatusUnfinished || r.Finished {
			t.Errorf("a folder whose run.json says running was indexed as %q (finished %v), want %q", r.Status, r.Finished, StatusUnfinished)
		}
		// The same run, finished: run.json rewritten as its end writes it.
		os.RemoveAll(dir)
		g.unfinished = false
		dir = writeGen(t, root, g)
		for range 2 {
			if _, err := c.Add(t.Context(), dir); err != nil {
				t.Fatal(err)
			}
		}
		runs, err := c.Runs(t.Context(), Query{})
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 1 || runs[0].Status != "completed" {
			t.Fatalf("after adding one run three times: %+v, want one completed run", runs)
		}
		figs, _ := c.Figures(t.Context(), runs[0].RunID)
		// 4 operations x 7 figures, less the bandwidth of md's create and
		// stat, which move no bytes: not measured, so absent.
		if len(figs) != 4*7-2 {
			t.Errorf("the run has %d figures, want %d", len(figs), 4*7-2)
		}
	})
}

// A half-written folder: run.json says running and summary.json is
// missing (the run crashed before its first phase ended). Indexed as
// unfinished, with no figures.
func TestHalfWrittenFolder(t *testing.T) {
	root := t.TempDir()
	dir := writeGen(t, root, genRun{i: 1, name: "x", start: t0, unfinished: true, seed: 3})
	os.Remove(filepath.Join(dir, "summary.json"))
	c, _ := tempCatalog(t)
	r, err := c.Add(t.Context(), dir)
	if err != nil {
		t.Fatalf("a crashed run's folder was refused: %v", err)
	}
	figs, _ := c.Figures(t.Context(), r.RunID)
	if r.Status != StatusUnfinished || len(figs) != 0 {
		t.Errorf("indexed as %q with %d figures, want %q with none", r.Status, len(figs), StatusUnfinished)
	}
}

// A catalog file that is not a database, a SQLite database of someone
// else's, and a catalog of a newer schema are refused with an error
// naming the file, and left byte for byte as they were.
func TestCatalogRefusedUntouched(t *testing.T) {
	dir := t.TempDir()
	corrupt := filepath.Join(dir, "corrupt.db")
	os.WriteFile(corrupt, []byte(strings.Repeat("not a database at all\n", 400)), 0o644)

	foreign := filepath.Join(dir, "foreign.db")
	c, err := openSQLite(foreign)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(`CREATE TABLE accounts (id INTEGER)`); err != nil {
		t.Fatal(err)
	}
	c.Close()

	newer := filepath.Join(dir, "newer.db")
	cat, err := Open(t.Context(), newer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cat.db.Exec(`UPDATE sb_meta SET value = '99' WHERE key = 'schema_version'`); err != nil {
		t.Fatal(err)
	}
	cat.Close()

	for _, tc := range []struct{ path, want string }{
		{corrupt, "not a storbench catalog or is damaged"},
		{foreign, "not a storbench catalog"},
		{newer, "schema version 99, newer than this storbench reads"},
	} {
		before := fileBytes(t, tc.path)
		_, err := Open(t.Context(), tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.path) {
			t.Errorf("Open(%s): %v, want an error naming the file and saying %q", filepath.Base(tc.path), err, tc.want)
		}
		if !reflect.DeepEqual(before, fileBytes(t, tc.path)) {
			t.Errorf("%s was changed by a refused Open", filepath.Base(tc.path))
		}
	}
}

// A catalog of schema version 1 is migrated when opened: its runs are
// kept and every query works.
func TestOlderSchemaMigrated(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(t.TempDir(), "v1.db")
	db, err := openSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	old := &Catalog{db: db, where: path}
	if err := old.migrateTo(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	if _, err := old.Add(t.Context(), writeGen(t, root, genRun{i: 1, name: "old", start: t0, labels: map[string]string{"tuning": "default"}})); err != nil {
		t.Fatal(err)
	}
	old.Close()
	c, err := Open(t.Context(), path)
	if err != nil {
		t.Fatalf("a version 1 catalog was not opened: %v", err)
	}
	defer c.Close()
	if v, _ := c.version(t.Context(), c.db); v != SchemaVersion {
		t.Errorf("after opening, schema version %d, want %d", v, SchemaVersion)
	}
	runs, err := c.Runs(t.Context(), Query{Labels: map[string]string{"tuning": "default"}})
	if err != nil || len(runs) != 1 {
		t.Errorf("the version 1 catalog's run after migration: %v %v", runs, err)
	}
}

// On both databases, a catalog of a newer schema is refused with an error
// saying so, its runs left as they were; an older one is migrated with
// its runs kept.
func TestSchemaVersionsOnEveryBackend(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		where := b.create(t)
		root := t.TempDir()
		old, err := openRaw(where)
		if err != nil {
			t.Fatal(err)
		}
		if err := old.migrateTo(t.Context(), 1); err != nil {
			t.Fatal(err)
		}
		if _, err := old.Add(t.Context(), writeGen(t, root, genRun{i: 1, name: "old", start: t0})); err != nil {
			t.Fatal(err)
		}
		old.Close()
		c := open(t, where)
		if runs, err := c.Runs(t.Context(), Query{Name: "old"}); err != nil || len(runs) != 1 {
			t.Fatalf("after migrating from version 1: %v %v", runs, err)
		}
		if _, err := c.db.Exec(`UPDATE sb_meta SET value = '99' WHERE key = 'schema_version'`); err != nil {
			t.Fatal(err)
		}
		c.Close()
		if _, err := Open(t.Context(), where); err == nil || !strings.Contains(err.Error(), "schema version 99, newer than this storbench reads") {
			t.Fatalf("a newer catalog: %v", err)
		}
		raw, _ := openRaw(where)
		defer raw.Close()
		if v, _ := raw.version(t.Context(), raw.db); v != 99 {
			t.Errorf("the newer catalog's version is now %d", v)
		}
		var n int
		raw.db.QueryRow(`SELECT count(*) FROM sb_runs`).Scan(&n)
		if n != 1 {
			t.Errorf("the newer catalog holds %d runs, want its 1 untouched", n)
		}
	})
}

// openRaw opens a catalog's database without migrating it.
func openRaw(where string) (*Catalog, error) {
	c := &Catalog{where: where, pg: IsURL(where)}
	var err error
	if c.pg {
		c.db, err = sql.Open("pgx", where)
	} else {
		c.db, err = openSQLite(where)
	}
	return c, err
}
