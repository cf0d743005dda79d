package cli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/storbench/storbench/internal/catalog"
	"github.com/storbench/storbench/internal/safetext"
)

// CatalogRmOptions are the flags of `storbench catalog rm`.
type CatalogRmOptions struct {
	Catalog CatalogOptions
	DryRun  bool
}

func newCatalogRmCommand(st *State) *cobra.Command {
	var o CatalogRmOptions
	cmd := &cobra.Command{
		Use:   "rm RUN-ID... | rm QUERY...",
		Short: "Take runs out of the catalog, by id or by query (their results folders stay)",
		Long: `Takes runs out of the catalog with their labels and figures: the runs named by
their ids, or every run that matches the QUERY terms (KEY=VALUE, as
'storbench runs' takes them). Lists the runs it takes out; with --dry-run it
only lists them. Their results folders are not touched: 'catalog add' brings
a run back. An id the catalog does not hold is bad input (exit 2), and then
nothing is taken out; a query that matches no run takes out nothing.`,
		Example: `  storbench catalog rm 20261121T051502Z-3fa9
  storbench catalog rm --dry-run label=purpose=smoke
  storbench catalog rm name=scratch,until=30d`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCatalogRm(cmd.Context(), st, o, args)
		},
	}
	o.Catalog.AddFlags(cmd.Flags())
	cmd.Flags().BoolVarP(&o.DryRun, "dry-run", "n", false, "list the runs it would take out, and take out none")
	return cmd
}

// runCatalogRm takes out the runs the arguments name: all ids, or all
// query terms (ids are any of several, terms all of one query: mixed,
// the meaning would be a guess).
func runCatalogRm(ctx context.Context, st *State, o CatalogRmOptions, args []string) error {
	terms := 0
	for _, a := range args {
		if strings.Contains(a, "=") {
			terms++
		}
	}
	if terms > 0 && terms < len(args) {
		return usageErr("catalog rm: give run ids or query terms, not both (catalog rm ID ID..., or catalog rm label=purpose=smoke)")
	}
	var q catalog.Query
	if terms > 0 {
		var err error
		if q, err = parseQuery(st, "catalog rm", args); err != nil {
			return err
		}
	}
	c, err := o.Catalog.query(ctx, st)
	if err != nil {
		return err
	}
	defer c.Close()
	runs, err := rmRuns(ctx, c, q, terms == 0, args)
	if err != nil {
		return err
	}
	if len(runs) == 0 {
		fmt.Fprintf(st.Stdout, "no run in %s matches %s: nothing taken out\n", c.Where(), q)
		return nil
	}
	verb := "taken out of"
	if o.DryRun {
		verb = "would be taken out of (--dry-run)"
	}
	fmt.Fprintf(st.Stdout, "%d runs %s %s (their results folders stay):\n", len(runs), verb, c.Where())
	tw := tabwriter.NewWriter(st.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STARTED (UTC)\tRUN\tNAME\tSTATUS\tLABELS\tFOLDER")
	// Names, labels and paths may come from folders anyone wrote: a row
	// is one line whatever they hold (runs).
	for _, r := range safetext.Copy(runs) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.StartedAt.Format("2006-01-02 15:04"), r.RunID, r.Name, r.Status, orDash(labelText(r.Labels)), r.Path)
	}
	if err := tw.Flush(); err != nil || o.DryRun {
		return err
	}
	ids := make([]string, len(runs))
	for i, r := range runs {
		ids[i] = r.RunID
	}
	_, err = c.Remove(ctx, ids)
	return err
}

// rmRuns finds the runs to take out: each id given (one the catalog does
// not hold is bad input, named), or those the query matches.
func rmRuns(ctx context.Context, c *catalog.Catalog, q catalog.Query, byID bool, ids []string) ([]catalog.Run, error) {
	if !byID {
		return c.Runs(ctx, q)
	}
	var runs []catalog.Run
	var missing []string
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		if strings.Contains(id, "*") {
			return nil, usageErr("catalog rm %s: a run id is given whole (a pattern: id=%s)", id, id)
		}
		got, err := c.Runs(ctx, catalog.Query{ID: id})
		if err != nil {
			return nil, err
		}
		if len(got) == 0 {
			missing = append(missing, id)
		}
		runs = append(runs, got...)
	}
	if len(missing) > 0 {
		return nil, usageErr("catalog rm: %s not in %s (see storbench runs); nothing taken out", strings.Join(missing, ", "), c.Where())
	}
	return runs, nil
}
