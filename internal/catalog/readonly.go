package catalog

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
)

// OpenReadOnly opens an existing catalog for reading only (storbench
// serve): a SQLite file is opened with mode=ro and never created, a
// PostgreSQL session has default_transaction_read_only on, and the schema
// is neither created nor migrated. A catalog of an older schema is
// refused with the command that migrates it.
func OpenReadOnly(ctx context.Context, where string) (*Catalog, error) {
	c := &Catalog{where: where, pg: IsURL(where)}
	var err error
	if c.pg {
		c.where = RedactURL(where)
		u, perr := url.Parse(where)
		if perr != nil {
			return nil, fmt.Errorf("catalog %s: %v", c.where, c.clean(perr))
		}
		v := u.Query()
		v.Set("default_transaction_read_only", "on")
		u.RawQuery = v.Encode()
		c.db, err = sql.Open("pgx", u.String())
	} else {
		found, perr := c.probe(ctx)
		switch {
		case perr != nil:
			return nil, perr
		case !found:
			return nil, fmt.Errorf("catalog %s: no such file (a catalog is made by a run or by storbench catalog add)", where)
		}
		c.db, err = sql.Open("sqlite", "file:"+where+"?mode=ro&_pragma=busy_timeout(30000)")
	}
	if err != nil {
		return nil, fmt.Errorf("catalog %s: %v", c.where, c.clean(err))
	}
	v, err := c.version(ctx, c.db)
	if err == nil && v > SchemaVersion {
		err = c.newer(v)
	}
	if err == nil && v < SchemaVersion {
		err = fmt.Errorf("catalog %s has schema version %d, older than this storbench's %d: it is opened read-only, so run storbench runs --catalog %s once to migrate it", c.where, v, SchemaVersion, c.where)
	}
	if err != nil {
		c.db.Close()
		return nil, err
	}
	return c, nil
}
