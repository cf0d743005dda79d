package cli

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// catalogCommands are every command that takes --catalog, each with what
// it needs to come to opening the catalog (where the catalog is its last
// argument): the run commands before any load, the queries, catalog add
// and serve.
func catalogCommands(t *testing.T, folder string) [][]string {
	data, res := t.TempDir(), filepath.Join(t.TempDir(), "results")
	suite := writeSuite(t, "name: foreign\ndir: "+data+"\nphases:\n  - md: {items: 10}\n")
	job := filepath.Join(t.TempDir(), "j.fio")
	if err := os.WriteFile(job, []byte(quickJob("read", "")), 0o644); err != nil {
		t.Fatal(err)
	}
	return [][]string{
		{"run", suite, "--results", res, "--catalog"},
		{"fio", "-d", data, "-w", job, "--results", res, "--catalog"},
		{"md", "-d", data, "-n", "10", "--results", res, "--catalog"},
		{"s3", "get", "--host", "127.0.0.1:1", "--access-key", "AKIAFOREIGNTEST0", "--secret-key", "foreign-secret-0123456789", "--results", res, "--catalog"},
		{"runs", "--catalog"},
		{"trend", "seq-read/read/bw", "--catalog"},
		{"check", folder, "--baseline", "name=x", "--catalog"},
		{"compare", "--a", "name=x", "--b", "name=y", "--catalog"},
		{"catalog", "add", folder, "--catalog"},
		{"serve", "--listen", "127.0.0.1:0", "--catalog"},
	}
}

// A SQLite database of someone else's given as --catalog to every command
// that takes it is refused in one line, exit 2, and left byte for byte as
// it was, with nothing made beside it (issue 32: runs, serve and catalog
// add switched it to WAL while saying "it was left as it is").
func TestForeignCatalogUntouchedByEveryCommand(t *testing.T) {
	t.Parallel()
	needFio(t)
	dir := t.TempDir()
	foreign := filepath.Join(dir, "other.db")
	db, err := sql.Open("sqlite", foreign)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`CREATE TABLE accounts (id INTEGER, name TEXT)`, `INSERT INTO accounts VALUES (1, 'alice')`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	before, _ := os.ReadFile(foreign)
	for _, args := range catalogCommands(t, resultsFolder(t)) {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			st, out := testState()
			refusedInOneLine(t, st, out, append(args, foreign), []string{foreign, "not a storbench catalog"})
			after, _ := os.ReadFile(foreign)
			if string(after) != string(before) {
				t.Errorf("the foreign database was changed: header bytes 18-19 %v, were %v", after[18:20], before[18:20])
				before = after
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 1 {
				t.Errorf("files made beside the foreign database: %v", ents)
			}
		})
	}
}

// A catalog that is a FIFO is refused at once, in one line and alike, by
// every command that takes --catalog (issue 34: serve blocked forever
// opening it, runs said "disk I/O error").
func TestCatalogFIFORefusedByEveryCommand(t *testing.T) {
	t.Parallel()
	needFio(t)
	fifo := filepath.Join(t.TempDir(), "catalog.db")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range catalogCommands(t, resultsFolder(t)) {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			st, out := testState()
			done := make(chan error, 1)
			go func() { done <- Execute(t.Context(), st, append(args, fifo)) }()
			select {
			case err := <-done:
				if ExitCode(err) != ExitUsage || err == nil || strings.Contains(err.Error(), "\n") ||
					!strings.Contains(err.Error(), fifo) || !strings.Contains(err.Error(), "is a FIFO, not a regular file") {
					t.Errorf("exit %d (%v), want one line saying the catalog is a FIFO, exit 2\n%s", ExitCode(err), err, out)
				}
			case <-time.After(10 * time.Second):
				t.Errorf("%s still blocks on a FIFO after 10 s", args[0])
				// A writer lets the blocked open go on.
				if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					defer w.Close()
				}
				<-done
			}
		})
	}
}

// resultsFolder is a results folder of a small md run, indexed nowhere.
func resultsFolder(t *testing.T) string {
	t.Helper()
	res := t.TempDir()
	if err, out := mdRun(t, "--results", res, "--no-catalog"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	folders, _ := filepath.Glob(filepath.Join(res, "*"))
	if len(folders) != 1 {
		t.Fatalf("results: %v", folders)
	}
	return folders[0]
}
