package cli

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/storbench/storbench/internal/catalog"
	"github.com/storbench/storbench/internal/safetext"
	"github.com/storbench/storbench/internal/units"
)

func newCatalogCommand(st *State) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "catalog",
		Short: "The catalog of runs: add results folders to it, take runs out of it",
		Long: `Every results folder a run writes is indexed into the catalog at the run's end:
SQLite in $XDG_DATA_HOME/storbench/catalog.db (~/.local/share/...) unless
--catalog names another file or a postgres:// URL, or STORBENCH_CATALOG does;
--no-catalog or STORBENCH_CATALOG=off use none. The folders stay the source of
truth: a catalog deleted and rebuilt with 'catalog add' answers the same.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newCatalogAddCommand(st), newCatalogRmCommand(st))
	return cmd
}

func newCatalogAddCommand(st *State) *cobra.Command {
	var o CatalogOptions
	cmd := &cobra.Command{
		Use:   "add DIR...",
		Short: "Index results folders written before, on other machines, or by merge",
		Long: `Indexes each results folder into the catalog: its run, labels, fingerprint and
every phase's figures. A folder of results folders (results/) adds each one.
A run already in the catalog is replaced, so adding a folder twice keeps it
once; a folder whose run crashed is indexed as unfinished, with the phases it
completed.`,
		Example: `  storbench catalog add results/
  storbench catalog add --catalog postgres://bench@db.example/storbench results/20261121T051502Z-3fa9_four-corners`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCatalogAdd(cmd.Context(), st, o, args)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// runCatalogAdd indexes every folder it can, then says what it could
// not: a folder that is not a results folder is bad input (exit 2), a
// catalog that fails to write fails the command (exit 1).
func runCatalogAdd(ctx context.Context, st *State, o CatalogOptions, args []string) error {
	dirs, err := catalog.Folders(args)
	if err != nil {
		return usageErr("%v", err)
	}
	c, err := o.need(ctx, st)
	if err != nil {
		return err
	}
	defer c.Close()
	var bad, failed []string
	added := 0
	werr := c.AddAll(ctx, dirs, func(d string, r *catalog.Run, err error) {
		var we *catalog.WriteError
		switch {
		case err == nil:
			added++
			st.logf(1, "added %s (%s) from %s", r.RunID, r.Status, d)
			return
		case errors.As(err, &we):
			failed = append(failed, d)
			return
		}
		fmt.Fprintf(st.Stderr, "catalog add: %v\n", err)
		bad = append(bad, d)
	})
	if werr != nil {
		fmt.Fprintf(st.Stderr, "catalog add: %v\n", werr)
	}
	fmt.Fprintf(st.Stdout, "%d of %d results folders in %s\n", added, len(dirs), c.Where())
	switch {
	case len(failed) > 0:
		return &ExitError{Code: ExitFailed, Err: fmt.Errorf("%d folders not added to the catalog: %s", len(failed), strings.Join(failed, ", "))}
	case len(bad) > 0:
		return usageErr("%d folders are not readable results folders: %s", len(bad), strings.Join(bad, ", "))
	}
	return nil
}

// OutputOptions choose how a listing prints: a table, JSON or CSV.
type OutputOptions struct {
	JSON, CSV bool
}

func (o OutputOptions) check() error {
	if o.JSON && o.CSV {
		return usageErr("choose one of --json, --csv")
	}
	return nil
}

// parseQuery reads query terms given as arguments or flag values: bad
// input when one is not KEY=VALUE of a known key.
func parseQuery(st *State, what string, terms []string) (catalog.Query, error) {
	q, err := catalog.ParseQuery(terms, st.Now())
	if err != nil {
		return q, usageErr("%s: %v", what, err)
	}
	return q, nil
}

func newRunsCommand(st *State) *cobra.Command {
	var o CatalogOptions
	var out OutputOptions
	last := 0
	spec := ""
	cmd := &cobra.Command{
		Use:   "runs [QUERY...]",
		Short: "List the runs in the catalog, filtered by labels, names, dates and fingerprints",
		Long: `Lists the catalog's runs that match every QUERY term, oldest first. A term is
KEY=VALUE, several may be joined with commas:
  label=KEY=VALUE   a label given with --label or a suite's labels:
  id= name= status= storbench= fio=   the run (a value with * is a pattern)
  since= until=     its start: 2026-01-02, 2026-01-02T15:04:05Z, or an age (30d, 12h)
  kernel= fs= mount= device= s3_endpoint= s3_server= hosts=   its fingerprint
                    (mount and device match any part)
  last=N            the newest N runs that match`,
		Example: `  storbench runs
  storbench runs label=tuning=tuned fs=xfs since=30d
  storbench runs --json name=four-corners,last=5`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRuns(cmd.Context(), st, o, out, last, spec, args)
		},
	}
	o.AddFlags(cmd.Flags())
	cmd.Flags().IntVar(&last, "last", 50, "show the newest N runs that match (0: all)")
	cmd.Flags().BoolVar(&out.JSON, "json", false, "print the runs as JSON")
	cmd.Flags().BoolVar(&out.CSV, "csv", false, "print the runs as CSV")
	cmd.Flags().StringVar(&spec, "spec", "", specFlagHelp)
	return cmd
}

func runRuns(ctx context.Context, st *State, o CatalogOptions, out OutputOptions, last int, spec string, terms []string) error {
	if err := out.check(); err != nil {
		return err
	}
	if last < 0 {
		return usageErr("--last %d: want 0 (all) or more", last)
	}
	q, err := parseQuery(st, "runs", terms)
	if err != nil {
		return err
	}
	if q.Last == 0 {
		q.Last = last
	}
	sp, err := readSpec(spec)
	if err != nil {
		return err
	}
	c, err := o.query(ctx, st)
	if err != nil {
		return err
	}
	defer c.Close()
	runs, err := c.Runs(ctx, q)
	if err != nil {
		return err
	}
	if sp != nil && len(runs) > 0 {
		return printRunsSpec(ctx, st, c, sp, out, runs)
	}
	if out.JSON {
		if runs == nil {
			runs = []catalog.Run{}
		}
		return printJSONValue(st.Stdout, runs)
	}
	// Names, labels and the rest come from results folders anyone may
	// have written, carried by a shared catalog to every reader: a row
	// shows them escaped, one line whatever they hold (JSON escapes them
	// itself, exactly).
	runs = safetext.Copy(runs)
	switch {
	case out.CSV:
		return runsCSV(st.Stdout, runs)
	}
	if len(runs) == 0 {
		fmt.Fprintf(st.Stdout, "no run in %s matches %s\n", c.Where(), q)
		return nil
	}
	tw := tabwriter.NewWriter(st.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STARTED (UTC)\tRUN\tNAME\tSTATUS\tHOSTS\tFS\tLABELS")
	for _, r := range runs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", r.StartedAt.Format("2006-01-02 15:04"), r.RunID, r.Name, r.Status, r.Hosts, orDash(r.FSType), orDash(labelText(r.Labels)))
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// labelText writes labels as k=v k=v, keys sorted.
func labelText(l map[string]string) string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(l)) {
		out = append(out, k+"="+l[k])
	}
	return strings.Join(out, " ")
}

func printJSONValue(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

func runsCSV(w io.Writer, runs []catalog.Run) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"run_id", "name", "status", "finished", "started_at", "ended_at", "storbench", "fio", "hosts",
		"kernel", "fs_type", "mount_options", "devices", "s3_endpoint", "s3_server", "labels", "path"})
	for _, r := range runs {
		ended := ""
		if !r.EndedAt.IsZero() {
			ended = r.EndedAt.Format(time.RFC3339)
		}
		_ = cw.Write([]string{r.RunID, r.Name, r.Status, strconv.FormatBool(r.Finished), r.StartedAt.Format(time.RFC3339), ended,
			r.Storbench, r.Fio, strconv.Itoa(r.Hosts), r.Kernel, r.FSType, r.MountOptions, r.Devices, r.S3Endpoint, r.S3Server,
			labelText(r.Labels), r.Path})
	}
	cw.Flush()
	return cw.Error()
}

// formatFigure prints a figure's value in its unit.
func formatFigure(name string, v float64) string {
	switch catalog.Unit(name) {
	case "ops/s":
		return units.Rate(v, "ops/s")
	case "B/s":
		return units.Bandwidth(v)
	case "ns":
		return units.Latency(v)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
