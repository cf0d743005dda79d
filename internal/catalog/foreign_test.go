package catalog

import (
	"context"
	"database/sql"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// openers are the catalog's two ways to open: for the commands that
// write or query it, and read-only for serve.
var openers = []struct {
	name string
	open func(context.Context, string) (*Catalog, error)
}{{"Open", Open}, {"OpenReadOnly", OpenReadOnly}}

// foreignDB makes a SQLite database of someone else's at path, in the
// journal mode given ("delete", SQLite's default, or "wal"), closed.
func foreignDB(t *testing.T, path, journal string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode("+journal+")")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{`CREATE TABLE accounts (id INTEGER, name TEXT)`, `INSERT INTO accounts VALUES (1, 'alice'), (2, 'bob')`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
}

// dirState is a directory's files with their contents: what a refused
// open must leave as it was (the database, and no -wal or -shm beside it).
func dirState(t *testing.T, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range ents {
		out[e.Name()] = string(fileBytes(t, filepath.Join(dir, e.Name())))
	}
	return out
}

// A SQLite database of someone else's, in the default journal mode or in
// WAL, is refused by Open (the commands that write or query the catalog)
// and by OpenReadOnly (serve), and left byte for byte as it was, with
// nothing made beside it (issue 32: Open switched it to WAL, header bytes
// 18-19 from 1 to 2, before saying "it was left as it is").
func TestForeignDatabaseUntouched(t *testing.T) {
	for _, journal := range []string{"delete", "wal"} {
		t.Run(journal, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "other.db")
			foreignDB(t, path, journal)
			before := dirState(t, dir)
			for _, o := range openers {
				c, err := o.open(t.Context(), path)
				if err == nil {
					c.Close()
				}
				if err == nil || !strings.Contains(err.Error(), "not a storbench catalog") || !strings.Contains(err.Error(), path) {
					t.Errorf("%s: %v, want a refusal naming the file", o.name, err)
				}
				after := dirState(t, dir)
				if len(after) != len(before) || after[filepath.Base(path)] != before[filepath.Base(path)] {
					names := slices.Sorted(maps.Keys(after))
					hdr := []byte(after[filepath.Base(path)])
					t.Errorf("%s changed the foreign database: files %v, header bytes 18-19 %v (were %v)", o.name, names, hdr[18:20], []byte(before[filepath.Base(path)])[18:20])
					before = after
				}
			}
		})
	}
}

// A catalog path that is a FIFO is refused at once, alike by Open and
// OpenReadOnly (issue 34: serve blocked forever opening it, runs said
// "disk I/O error"); so are a directory and a device.
func TestCatalogNotAFileRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "catalog.db")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{fifo, "is a FIFO, not a regular file"},
		{"/dev/null", "is a character device, not a regular file"},
		{dir, "is a directory"},
	} {
		for _, o := range openers {
			done := make(chan error, 1)
			go func() {
				c, err := o.open(t.Context(), tc.path)
				if err == nil {
					c.Close()
				}
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.path) {
					t.Errorf("%s(%s): %v, want it to say %q", o.name, tc.path, err, tc.want)
				}
			case <-time.After(10 * time.Second):
				t.Errorf("%s(%s) still blocks after 10 s", o.name, tc.path)
				// A writer lets the blocked open go on.
				if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					defer w.Close()
				}
			}
		}
	}
}
