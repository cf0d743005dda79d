package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/storbench/storbench/internal/catalog"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/run"
)

// CatalogOptions say where the catalog is: --catalog, --no-catalog, else
// STORBENCH_CATALOG, else the user's data folder (catalog.Location).
type CatalogOptions struct {
	Where string
	Off   bool
}

// AddFlags registers the options' flags.
func (o *CatalogOptions) AddFlags(f *pflag.FlagSet) {
	f.StringVar(&o.Where, "catalog", "", "the catalog: a SQLite file or a postgres://USER@HOST/DB URL (default: $"+catalog.EnvCatalog+", else $XDG_DATA_HOME/storbench/catalog.db); the URL's password is never recorded or printed")
	f.BoolVar(&o.Off, "no-catalog", false, "use no catalog ("+catalog.EnvCatalog+"=off does the same)")
}

// open opens the catalog, or returns nil when there is none. A catalog
// that cannot be opened is bad input: nothing has run yet.
func (o CatalogOptions) open(ctx context.Context, st *State) (*catalog.Catalog, error) {
	where, on, why := catalog.Location(o.Where, o.Off, st.getenv)
	if !on {
		st.logf(1, "catalog: none (%s)", why)
		return nil, nil
	}
	err := catalog.MakeDefaultFolder(where, st.getenv)
	var c *catalog.Catalog
	if err == nil {
		c, err = catalog.Open(ctx, where)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, interrupted()
		}
		return nil, usageErr("%v (or run with --no-catalog)", err)
	}
	return c, nil
}

// need opens the catalog for a command that only reads or fills it:
// without one it has nothing to do.
func (o CatalogOptions) need(ctx context.Context, st *State) (*catalog.Catalog, error) {
	c, err := o.open(ctx, st)
	if err == nil && c == nil {
		_, _, why := catalog.Location(o.Where, o.Off, st.getenv)
		return nil, usageErr("no catalog (%s): give --catalog FILE or URL", why)
	}
	return c, err
}

// query opens the catalog for a command that only reads it (runs, trend,
// check, compare --a/--b): a SQLite file that is not there is said to be
// missing, not made empty by the asking.
func (o CatalogOptions) query(ctx context.Context, st *State) (*catalog.Catalog, error) {
	where, on, _ := catalog.Location(o.Where, o.Off, st.getenv)
	if on && !catalog.IsURL(where) {
		if _, err := os.Stat(where); errors.Is(err, fs.ErrNotExist) {
			return nil, usageErr("no catalog at %s: a run or storbench catalog add makes it (or give --catalog FILE or URL)", where)
		}
	}
	return o.need(ctx, st)
}

// RunCatalogOptions are the catalog flags of the commands that run: where
// the run is indexed, and the labels it carries.
type RunCatalogOptions struct {
	CatalogOptions
	Labels []string
}

// AddFlags registers the options' flags.
func (o *RunCatalogOptions) AddFlags(f *pflag.FlagSet) {
	o.CatalogOptions.AddFlags(f)
	f.StringArrayVar(&o.Labels, "label", nil, "label the run KEY=VALUE for the catalog (repeatable: --label raid=6 --label tuning=default); a suite's labels: add to these")
}

// runCatalog is a run's catalog: open before the run, so a catalog that
// cannot be used is found before any load, and filled at its end.
type runCatalog struct {
	c *catalog.Catalog
}

// prepare checks the labels and opens the catalog, and records the
// labels (flags over the suite's) and the fingerprint in the plan.
func (o RunCatalogOptions) prepare(ctx context.Context, st *State, p *run.Plan) (*runCatalog, error) {
	for k, v := range p.RunLabels {
		if _, _, err := catalog.ParseLabel(k + "=" + v); err != nil {
			return nil, usageErr("the suite's labels: %v", err)
		}
	}
	labels, err := catalog.Labels(o.Labels)
	if err != nil {
		return nil, usageErr("--label: %v", err)
	}
	if len(labels) > 0 {
		merged := maps.Clone(p.RunLabels)
		if merged == nil {
			merged = map[string]string{}
		}
		maps.Copy(merged, labels)
		p.RunLabels = merged
	}
	c, err := o.open(ctx, st)
	if err != nil {
		return nil, err
	}
	ep, _ := st.Engines.FirstEndpoint(p.Phases)
	fo := catalog.FingerprintOptions{Dirs: p.Dirs, S3: ep, Hosts: len(p.Agents.Hosts), AskS3: c != nil}
	var probe *model.Probe
	if p.Fingerprint != nil { // a probe made before the run (--probe)
		probe = p.Fingerprint.Probe
		if probe != nil {
			fo.S3Server = probe.Server
		}
	}
	fp := catalog.TakeFingerprint(ctx, fo)
	fp.Probe = probe
	p.Fingerprint = &fp
	return &runCatalog{c: c}, nil
}

// add indexes the run's results folder. A catalog that fails now loses
// nothing: the folder is complete, and the run says how to add it later.
func (rc *runCatalog) add(ctx context.Context, st *State, res *run.Result) {
	if rc == nil || rc.c == nil {
		return
	}
	defer rc.c.Close()
	if res == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if _, err := rc.c.Add(ctx, res.Folder.Path); err != nil {
		fmt.Fprintf(st.Stderr, "catalog: run %s was not added (%v); its results folder is complete: add it later with: storbench catalog add %s\n",
			res.Summary.RunID, err, res.Folder.Path)
		return
	}
	st.logf(1, "catalog: run %s added to %s", res.Summary.RunID, rc.c.Where())
}
