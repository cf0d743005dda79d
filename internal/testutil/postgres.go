package testutil

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Postgres is a real PostgreSQL server from the distribution, started on
// loopback for tests, run as the unprivileged user nobody when the tests
// run as root (PostgreSQL refuses to run as root). Its superuser sb has
// a random password, which the tests hunt for where it must not be.
type Postgres struct {
	Bin      string
	Dir      string
	Port     int
	Password string
	asNobody bool
	mu       sync.Mutex
	dbs      int
}

// PostgresBin finds the distribution's PostgreSQL programs: $STORBENCH_PG_BIN,
// else the newest /usr/lib/postgresql/*/bin with initdb.
func PostgresBin() string {
	if d := os.Getenv("STORBENCH_PG_BIN"); d != "" {
		return d
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	sort.Slice(found, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(found[i]))))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(found[j]))))
		return vi < vj
	})
	if len(found) == 0 {
		return ""
	}
	return filepath.Dir(found[len(found)-1])
}

// StartPostgres initialises a cluster in a new folder and starts it on a
// free loopback port; it skips the test, saying why, where that cannot
// be done (no PostgreSQL installed: make tools installs it). The caller
// stops it (Stop) and removes it (Remove).
func StartPostgres(tb testing.TB) *Postgres {
	tb.Helper()
	bin := PostgresBin()
	if bin == "" {
		tb.Skip("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb; make tools installs it, or set STORBENCH_PG_BIN)")
	}
	pg := &Postgres{Bin: bin, asNobody: os.Getuid() == 0}
	var b [12]byte
	_, _ = rand.Read(b[:])
	pg.Password = "pgPw" + hex.EncodeToString(b[:])
	dir, err := os.MkdirTemp("", "storbench-pg-")
	if err != nil {
		tb.Fatal(err)
	}
	pg.Dir = dir
	pwfile := filepath.Join(dir, "pw")
	if err := os.WriteFile(pwfile, []byte(pg.Password+"\n"), 0o600); err != nil {
		tb.Fatal(err)
	}
	if pg.asNobody {
		if _, err := exec.LookPath("runuser"); err != nil {
			tb.Skip("PostgreSQL refuses to run as root, and runuser is missing to run it as nobody")
		}
		for _, p := range []string{dir, pwfile} {
			if err := os.Chown(p, 65534, 65534); err != nil {
				tb.Skipf("PostgreSQL refuses to run as root, and %s cannot be given to nobody: %v", p, err)
			}
		}
	}
	if out, err := pg.cmd("initdb", "-D", filepath.Join(dir, "data"), "-U", "sb", "--pwfile", pwfile,
		"--auth-host=scram-sha-256", "--auth-local=trust", "-E", "UTF8", "--no-sync").CombinedOutput(); err != nil {
		tb.Fatalf("initdb: %v\n%s", err, out)
	}
	pg.Port = freePort(tb)
	if err := pg.Start(); err != nil {
		tb.Fatal(err)
	}
	return pg
}

func freePort(tb testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// cmd runs one of PostgreSQL's programs, as nobody when we are root.
func (pg *Postgres) cmd(name string, args ...string) *exec.Cmd {
	path := filepath.Join(pg.Bin, name)
	if pg.asNobody {
		return exec.Command("runuser", append([]string{"-u", "nobody", "--", path}, args...)...)
	}
	return exec.Command(path, args...)
}

// Start starts the server (again) and waits until it takes connections.
func (pg *Postgres) Start() error {
	opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -k %s -c fsync=off -c max_connections=200", pg.Port, pg.Dir)
	out, err := pg.cmd("pg_ctl", "-D", filepath.Join(pg.Dir, "data"), "-l", filepath.Join(pg.Dir, "log"), "-o", opts, "-w", "-t", "60", "start").CombinedOutput()
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(pg.Dir, "log"))
		return fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	return nil
}

// Stop stops the server at once (connections cut), as a crash or an
// administrator's fast shutdown would.
func (pg *Postgres) Stop() error {
	out, err := pg.cmd("pg_ctl", "-D", filepath.Join(pg.Dir, "data"), "-m", "immediate", "-w", "stop").CombinedOutput()
	if err != nil {
		return fmt.Errorf("pg_ctl stop: %v\n%s", err, out)
	}
	return nil
}

// Remove stops the server if it runs and removes its folder.
func (pg *Postgres) Remove() {
	_ = pg.Stop()
	_ = os.RemoveAll(pg.Dir)
}

// URL is the URL of database db, with the password.
func (pg *Postgres) URL(db string) string {
	return fmt.Sprintf("postgres://sb:%s@127.0.0.1:%d/%s?sslmode=disable", pg.Password, pg.Port, db)
}

// NewDB creates a new, empty database and returns its URL.
func (pg *Postgres) NewDB(tb testing.TB) string {
	tb.Helper()
	pg.mu.Lock()
	pg.dbs++
	name := "cat" + strconv.Itoa(pg.dbs)
	pg.mu.Unlock()
	pg.SQL(tb, "CREATE DATABASE "+name)
	return pg.URL(name)
}

// SQL runs statements with psql over the local socket, as sb, in the
// database postgres.
func (pg *Postgres) SQL(tb testing.TB, stmt string) string {
	tb.Helper()
	return pg.SQLIn(tb, "postgres", stmt)
}

// SQLIn runs statements in database db.
func (pg *Postgres) SQLIn(tb testing.TB, db, stmt string) string {
	tb.Helper()
	var out []byte
	var err error
	for range 3 {
		out, err = pg.cmd("psql", "-h", pg.Dir, "-p", strconv.Itoa(pg.Port), "-U", "sb", "-d", db, "-v", "ON_ERROR_STOP=1", "-Atc", stmt).CombinedOutput()
		if err == nil {
			return strings.TrimSpace(string(out))
		}
		time.Sleep(200 * time.Millisecond)
	}
	tb.Fatalf("psql %q: %v\n%s", stmt, err, out)
	return ""
}
