package catalog

import (
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/storbench/storbench/internal/testutil"
)

var (
	pgOnce   sync.Once
	pgServer *testutil.Postgres
	pgFailed bool
)

func TestMain(m *testing.M) {
	code := m.Run()
	if pgServer != nil {
		pgServer.Remove()
	}
	os.Exit(code)
}

// postgres returns the package's PostgreSQL server, started by the first
// test that wants it; a test skips when it cannot be started, saying why.
func postgres(t *testing.T) *testutil.Postgres {
	t.Helper()
	pgOnce.Do(func() {
		pgFailed = true
		pgServer = testutil.StartPostgres(t)
		pgFailed = false
	})
	if pgServer == nil {
		if pgFailed {
			t.Fatal("PostgreSQL did not start: see the first test that started it")
		}
		t.Skip("PostgreSQL is not available: see the first test that started it")
	}
	return pgServer
}

// backend is one kind of catalog: every test of the catalog's behaviour
// runs on each (SQLite in a file, PostgreSQL on loopback).
type backend struct {
	name string
	// create returns where a new, empty catalog is.
	create func(t *testing.T) string
	// remove deletes the catalog at where, so it can be made again.
	remove func(t *testing.T, where string)
}

func backends() []backend {
	return []backend{
		{"sqlite", func(t *testing.T) string { return t.TempDir() + "/catalog.db" }, func(t *testing.T, where string) {
			for _, p := range []string{where, where + "-wal", where + "-shm"} {
				if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
			}
		}},
		{"postgres", func(t *testing.T) string { return postgres(t).NewDB(t) }, func(t *testing.T, where string) {
			name := where[strings.LastIndex(where, "/")+1 : strings.Index(where, "?")]
			pg := postgres(t)
			pg.SQL(t, "DROP DATABASE "+name+" WITH (FORCE)")
			pg.SQL(t, "CREATE DATABASE "+name)
		}},
	}
}

// eachBackend runs test on every backend.
func eachBackend(t *testing.T, test func(t *testing.T, b backend)) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) { test(t, b) })
	}
}

// open opens the catalog at where, closed at the test's end.
func open(t *testing.T, where string) *Catalog {
	t.Helper()
	c, err := Open(t.Context(), where)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
