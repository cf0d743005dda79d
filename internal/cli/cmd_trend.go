package cli

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/storbench/storbench/internal/catalog"
	"github.com/storbench/storbench/internal/safetext"
	"github.com/storbench/storbench/internal/stats"
)

// TrendOptions are the flags of `storbench trend`.
type TrendOptions struct {
	Catalog CatalogOptions
	Out     OutputOptions
	By      string
	Last    int
}

func newTrendCommand(st *State) *cobra.Command {
	var o TrendOptions
	cmd := &cobra.Command{
		Use:   "trend FIGURE [QUERY...]",
		Short: "One figure over time across the catalog's runs, grouped by a label",
		Long: `Shows FIGURE in every run that matches the QUERY terms (as 'storbench runs'
takes them), oldest first, and per group of --by LABEL: runs, first, last,
mean, min, max and the change from first to last.

FIGURE is PHASE/OP/NAME, or PHASE/OP/NAME@HOST for one host's figure:
  PHASE  the phase's name in the results (seq-read, md, 011-bandwidthR)
  OP     the operation (read, write, create, stat, get, put, ...)
  NAME   rate (ops/s), bw (B/s), mean, p50, p99, p99.9 (latency, ns), errors
PHASE and OP may hold * to match several: */read/bw is every phase's read
bandwidth.`,
		Example: `  storbench trend seq-read/read/bw --by tuning
  storbench trend md/create/rate label=raid=6 since=90d
  storbench trend s3-get/get/p99@client3 --csv`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTrend(cmd.Context(), st, o, args[0], args[1:])
		},
	}
	o.Catalog.AddFlags(cmd.Flags())
	cmd.Flags().StringVar(&o.By, "by", "", "group the runs by this label's value")
	cmd.Flags().IntVar(&o.Last, "last", 1000, "the newest N runs that match (0: all)")
	cmd.Flags().BoolVar(&o.Out.JSON, "json", false, "print the points and groups as JSON")
	cmd.Flags().BoolVar(&o.Out.CSV, "csv", false, "print the points as CSV")
	return cmd
}

// TrendGroup sums up one group's points.
type TrendGroup struct {
	Group string  `json:"group"`
	Runs  int     `json:"runs"`
	First float64 `json:"first"`
	Last  float64 `json:"last"`
	Mean  float64 `json:"mean"`
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
	// ChangePct is last against first, in percent.
	ChangePct float64 `json:"change_pct"`
}

func runTrend(ctx context.Context, st *State, o TrendOptions, figure string, terms []string) error {
	if err := o.Out.check(); err != nil {
		return err
	}
	f, err := catalog.ParseFigure(figure)
	if err != nil {
		return usageErr("%v", err)
	}
	if o.By != "" {
		if _, _, err := catalog.ParseLabel(o.By + "="); err != nil {
			return usageErr("--by %q: give a label's key (--by tuning)", o.By)
		}
	}
	q, err := parseQuery(st, "trend", terms)
	if err != nil {
		return err
	}
	if o.Last < 0 {
		return usageErr("--last %d: want 0 (all) or more", o.Last)
	}
	if q.Last == 0 {
		q.Last = o.Last
	}
	c, err := o.Catalog.query(ctx, st)
	if err != nil {
		return err
	}
	defer c.Close()
	pts, err := c.Trend(ctx, q, f, o.By)
	if err != nil {
		return err
	}
	if len(pts) == 0 {
		if err := unmeasured(ctx, c, q, f); err != nil {
			return err
		}
	}
	groups := trendGroups(pts)
	if o.Out.JSON {
		if pts == nil {
			pts = []catalog.Point{}
		}
		return printJSONValue(st.Stdout, map[string]any{"figure": f, "unit": catalog.Unit(f.Name), "by": o.By, "query": q.String(), "points": pts, "groups": groups})
	}
	// A row is one line, whatever the runs' names and labels hold (runs).
	pts, groups = safetext.Copy(pts), safetext.Copy(groups)
	if o.Out.CSV {
		return trendCSV(st.Stdout, f, pts)
	}
	if len(pts) == 0 {
		fmt.Fprintf(st.Stdout, "no run in %s that matches %s measured %s\n", c.Where(), q, f)
		return nil
	}
	trendText(st.Stdout, f, o.By, pts, groups)
	return nil
}

// trendGroups sums up the points per group, groups in order of their
// first point.
func trendGroups(pts []catalog.Point) []TrendGroup {
	var order []string
	vals := map[string][]float64{}
	for _, p := range pts {
		if _, ok := vals[p.Group]; !ok {
			order = append(order, p.Group)
		}
		vals[p.Group] = append(vals[p.Group], p.Value)
	}
	out := []TrendGroup{}
	for _, g := range order {
		v := vals[g]
		d := stats.Describe(v)
		tg := TrendGroup{Group: g, Runs: len(v), First: v[0], Last: v[len(v)-1], Mean: d.Mean, Min: d.Min, Max: d.Max}
		if tg.First != 0 {
			tg.ChangePct = 100 * (tg.Last - tg.First) / tg.First
		}
		out = append(out, tg)
	}
	return out
}

func trendText(w io.Writer, f catalog.FigureRef, by string, pts []catalog.Point, groups []TrendGroup) {
	unit := catalog.Unit(f.Name)
	if unit == "" {
		unit = "count"
	}
	fmt.Fprintf(w, "%s (%s)", f, unit)
	if by != "" {
		fmt.Fprintf(w, " by %s", by)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STARTED (UTC)\tRUN\tGROUP\tPHASE/OP\tVALUE")
	for _, p := range pts {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.StartedAt.Format("2006-01-02 15:04"), p.RunID, orDash(p.Group), p.Phase+"/"+p.Op, formatFigure(f.Name, p.Value))
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "GROUP\tRUNS\tFIRST\tLAST\tMEAN\tMIN\tMAX\tLAST VS FIRST")
	for _, g := range groups {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%+.1f%%\n", orDash(g.Group), g.Runs, formatFigure(f.Name, g.First), formatFigure(f.Name, g.Last),
			formatFigure(f.Name, g.Mean), formatFigure(f.Name, g.Min), formatFigure(f.Name, g.Max), g.ChangePct)
	}
	tw.Flush()
}

func trendCSV(w io.Writer, f catalog.FigureRef, pts []catalog.Point) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"started_at", "run_id", "name", "group", "phase", "op", "figure", "unit", "value"})
	for _, p := range pts {
		_ = cw.Write([]string{p.StartedAt.Format(time.RFC3339), p.RunID, p.Name, p.Group, p.Phase, p.Op, f.Name, catalog.Unit(f.Name),
			strconv.FormatFloat(p.Value, 'g', -1, 64)})
	}
	cw.Flush()
	return cw.Error()
}

// unmeasured refuses a figure that none of the runs the query matches
// measured (a typo'd phase or operation), listing those they did; with
// no run at all to list from, the trend is just empty.
func unmeasured(ctx context.Context, c *catalog.Catalog, q catalog.Query, f catalog.FigureRef) error {
	const shown = 40
	have, n, err := c.Measured(ctx, q, shown)
	if err != nil || n == 0 {
		return err
	}
	names := make([]string, len(have))
	for i, h := range have {
		names[i] = h.String()
	}
	more := ""
	if n > shown {
		more = fmt.Sprintf(" and %d more", n-shown)
	}
	return usageErr("no run in %s that matches %s measured %s: the figures they measured are %s%s", c.Where(), q, f, strings.Join(safetext.Copy(names), ", "), more)
}
