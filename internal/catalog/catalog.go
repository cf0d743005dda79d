// Package catalog indexes results folders into a database, so runs can be
// found, compared and followed across months: SQLite in a file by default
// (a pure-Go driver, the binary stays static), PostgreSQL for a team
// (postgres:// URLs, through pgx's database/sql driver, so one code path
// serves both). The folders stay the source of truth: everything in the
// catalog is read from run.json and summary.json, and a catalog deleted
// and rebuilt with Add answers every query the same.
package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	_ "modernc.org/sqlite"             // database/sql driver "sqlite"
)

// SchemaVersion is the version of the catalog's tables this storbench
// writes. A catalog of an older version is migrated when opened; one of a
// newer version is refused, untouched.
const SchemaVersion = 5

// Catalog is an open catalog.
type Catalog struct {
	db *sql.DB
	// pg says the catalog is PostgreSQL (placeholders $1, advisory
	// locks); else SQLite.
	pg bool
	// where is the catalog's location as it may be shown: a file path,
	// or the URL with its password taken out.
	where string
	// schema is the version of the catalog's tables once migrated (tests
	// keep catalogs at older ones, whose tables writes must keep to).
	schema int
}

// Where is the catalog's location as it may be printed: a file, or a
// URL without its password.
func (c *Catalog) Where() string { return c.where }

// Close closes the catalog.
func (c *Catalog) Close() error { return c.db.Close() }

// IsURL reports whether where names a PostgreSQL catalog.
func IsURL(where string) bool {
	return strings.HasPrefix(where, "postgres://") || strings.HasPrefix(where, "postgresql://")
}

// Open opens the catalog at where (a file path, or a postgres:// URL),
// creating it when it does not exist and migrating an older schema. A
// file that is not a storbench catalog, or one of a newer schema, is
// refused with an error saying so, and left as it was.
func Open(ctx context.Context, where string) (*Catalog, error) {
	c := &Catalog{where: where, pg: IsURL(where)}
	var err error
	if c.pg {
		c.where = RedactURL(where)
		c.db, err = sql.Open("pgx", where)
	} else {
		found, err := c.probe(ctx)
		if err != nil {
			return nil, err
		}
		if !found {
			if err := folderExists(where); err != nil {
				return nil, err
			}
		}
		c.db, err = openSQLite(where)
	}
	if err != nil {
		return nil, fmt.Errorf("catalog %s: %v", c.where, c.clean(err))
	}
	if err := c.migrate(ctx); err != nil {
		c.db.Close()
		return nil, err
	}
	return c, nil
}

// folderExists refuses a SQLite catalog file to be made in a folder that
// does not exist: a path the user gave (--catalog, EnvCatalog) into a
// missing folder is a typo more often than a wish, and storbench makes
// no folders where it was not asked to (as root, anywhere). The default
// catalog's folder is made by MakeDefaultFolder.
func folderExists(path string) error {
	dir := filepath.Dir(path)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("catalog %s: the folder %s does not exist: make it (mkdir -p %s), or give a catalog in a folder that exists", path, dir, dir)
	}
	return nil
}

// openSQLite opens (creating) a SQLite catalog file, in a folder that
// exists. WAL lets readers go on while one writer writes; writers wait
// for each other (busy timeout) and take the write lock when their
// transaction begins, so concurrent runs never fail on a lock upgrade.
func openSQLite(path string) (*sql.DB, error) {
	dsn := "file:" + path + "?_pragma=busy_timeout(30000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	return sql.Open("sqlite", dsn)
}

// probe refuses a SQLite catalog file that storbench must not write:
// one that is not a regular file, and one with content that is not a
// storbench catalog this storbench reads, so that a database of someone
// else's is left byte for byte as it was. Opening for writing switches a
// file to WAL (openSQLite), which changes its header, and even a mode=ro
// open of a WAL database makes its -wal and -shm files: probe reads the
// file alone (immutable=1: no lock, no journal, nothing written). A
// catalog's last changes may then be unseen (in its -wal), which errs
// only towards taking it for an older or empty one, and the open for
// writing reads it again (migrateTo). A file that is not there (found
// false), or empty, becomes a new catalog.
func (c *Catalog) probe(ctx context.Context) (found bool, err error) {
	fi, err := checkFile(c.where)
	if err != nil || fi == nil || fi.Size() == 0 {
		return fi != nil, err
	}
	db, err := sql.Open("sqlite", "file:"+c.where+"?mode=ro&immutable=1")
	if err != nil {
		return true, fmt.Errorf("catalog %s: %v", c.where, err)
	}
	defer db.Close()
	v, err := c.version(ctx, db)
	if err == nil && v > SchemaVersion {
		err = c.newer(v)
	}
	return true, err
}

// checkFile refuses a SQLite catalog's path that is not a regular file:
// a directory, or a FIFO or device, whose opening would block or read
// what is no database. fi is nil when nothing is there.
func checkFile(path string) (fi os.FileInfo, err error) {
	fi, err = os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("catalog %s: %v", path, err)
	case fi.IsDir():
		return nil, fmt.Errorf("catalog %s is a directory: give a file", path)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("catalog %s is %s, not a regular file: give a SQLite file or a postgres:// URL", path, fileKind(fi.Mode()))
	}
	return fi, nil
}

// fileKind names a file's type that is not a regular file or directory.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "not a file"
}

// clean takes the catalog URL's password out of an error's text: drivers
// may quote their connection string.
func (c *Catalog) clean(err error) error {
	if err == nil {
		return nil
	}
	return errors.New(scrub(err.Error()))
}

// q rewrites a query written with ? placeholders for the catalog's
// database ($1, $2 ... for PostgreSQL).
func (c *Catalog) q(query string) string {
	if !c.pg {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ns is a time as the catalog stores it: Unix nanoseconds, UTC (0: none).
func ns(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// fromNs is the time of a stored value (zero for 0).
func fromNs(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.Unix(0, v).UTC()
}
