package catalog

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A catalog opened read-only (storbench serve) answers queries and
// refuses every write, on SQLite and on PostgreSQL: a run added through
// it is an error and is not in the catalog after.
func TestReadOnlyRefusesWrites(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		where := b.create(t)
		w := open(t, where)
		root := t.TempDir()
		t0 := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
		if _, err := w.Add(t.Context(), writeGen(t, root, genRun{i: 1, name: "a", start: t0})); err != nil {
			t.Fatal(err)
		}
		ro, err := OpenReadOnly(t.Context(), where)
		if err != nil {
			t.Fatal(err)
		}
		defer ro.Close()
		if runs, err := ro.Runs(t.Context(), Query{}); err != nil || len(runs) != 1 {
			t.Fatalf("read-only Runs: %d runs, %v", len(runs), err)
		}
		if _, err := ro.Add(t.Context(), writeGen(t, root, genRun{i: 2, name: "b", start: t0.Add(time.Hour)})); err == nil {
			t.Error("a run was added through a read-only catalog")
		}
		if runs, _ := w.Runs(t.Context(), Query{}); len(runs) != 1 {
			t.Errorf("the catalog holds %d runs after a refused write, want 1", len(runs))
		}
	})
}

// A catalog of an older schema is not migrated by a read-only open: it is
// refused, saying how to migrate it.
func TestReadOnlyRefusesOldSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := openSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	old := &Catalog{db: db, where: path}
	if err := old.migrateTo(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	old.Close()
	before := fileBytes(t, path)
	_, err = OpenReadOnly(t.Context(), path)
	if err == nil || !strings.Contains(err.Error(), "older") || !strings.Contains(err.Error(), "storbench runs --catalog") {
		t.Errorf("an old catalog opened read-only: %v", err)
	}
	if string(fileBytes(t, path)) != string(before) {
		t.Error("the old catalog was changed")
	}
}
