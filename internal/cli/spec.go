package cli

import (
	"context"
	"encoding/csv"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/storbench/storbench/internal/catalog"
	"github.com/storbench/storbench/internal/safetext"
	"github.com/storbench/storbench/internal/specs"
)

// specFlagHelp is the help of --spec, the same on runs and report.
const specFlagHelp = "a spec file (YAML) of what a device or system is claimed to do (seq_read_bw: 6GB/s, rand_read_iops: {bs: 4k, value: 1M}): figures a claim applies to are shown as a share of it (see docs/catalog.md)"

// readSpec reads --spec, nil without one; a bad spec is bad input.
func readSpec(file string) (*specs.Spec, error) {
	if file == "" {
		return nil, nil
	}
	s, err := specs.Read(file)
	if err != nil {
		return nil, asUsage(err)
	}
	return s, nil
}

// runShares is a run with its figures as shares of the spec's claims.
type runShares struct {
	catalog.Run
	Shares []specs.Share `json:"spec_shares"`
}

// sharesOf reads each run's figures and matches them with the spec.
func sharesOf(ctx context.Context, c *catalog.Catalog, s *specs.Spec, runs []catalog.Run) ([]runShares, error) {
	out := make([]runShares, len(runs))
	for i, r := range runs {
		figs, err := c.Figures(ctx, r.RunID)
		if err != nil {
			return nil, err
		}
		out[i] = runShares{Run: r, Shares: s.Shares(figs)}
		if out[i].Shares == nil {
			out[i].Shares = []specs.Share{}
		}
	}
	return out, nil
}

// sharesText writes a run's shares for the table: "seq_read_bw 50%
// rand_read_iops 25%" (each phase's when several phases match a claim).
func sharesText(sh []specs.Share) string {
	var parts []string
	for _, s := range sh {
		parts = append(parts, s.Claim+"@"+s.Phase+" "+specs.PctText(s.Pct))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}

// printRunsSpec prints runs as storbench runs does, with each run's
// figures as shares of the spec's claims: a SPEC column, spec_shares in
// JSON and CSV.
func printRunsSpec(ctx context.Context, st *State, c *catalog.Catalog, sp *specs.Spec, out OutputOptions, runs []catalog.Run) error {
	rs, err := sharesOf(ctx, c, sp, runs)
	if err != nil {
		return err
	}
	if out.JSON {
		return printJSONValue(st.Stdout, rs)
	}
	rs = safetext.Copy(rs) // a row is one line (see runRuns)
	switch {
	case out.CSV:
		cw := csv.NewWriter(st.Stdout)
		_ = cw.Write([]string{"run_id", "name", "status", "started_at", "labels", "spec_shares"})
		for _, r := range rs {
			_ = cw.Write([]string{r.RunID, r.Name, r.Status, r.StartedAt.Format(time.RFC3339), labelText(r.Labels), sharesText(r.Shares)})
		}
		cw.Flush()
		return cw.Error()
	}
	name := sp.Name
	if name == "" {
		name = "the spec"
	}
	fmt.Fprintf(st.Stdout, "SPEC: each figure as a share of what %s claims\n", name)
	tw := tabwriter.NewWriter(st.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STARTED (UTC)\tRUN\tNAME\tSTATUS\tHOSTS\tFS\tLABELS\tSPEC")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", r.StartedAt.Format("2006-01-02 15:04"), r.RunID, r.Name, r.Status, r.Hosts,
			orDash(r.FSType), orDash(labelText(r.Labels)), sharesText(r.Shares))
	}
	return tw.Flush()
}
