package catalog

import (
	"context"

	"github.com/storbench/storbench/internal/results"
)

// ClientLimit is a limit of its own that a host reached during a phase
// (results.HostVerdict): a verdict on whose limit the phase's figure is.
type ClientLimit struct {
	Phase, Host string
	// Kind is a model.Verdict kind (cpu, network, disk, starved); Text
	// the verdict in words.
	Kind, Text string
}

// clientLimitsOf are the verdicts of a summary's completed phases, as
// its figures are.
func clientLimitsOf(sum *results.Summary) []ClientLimit {
	var out []ClientLimit
	for _, p := range sum.Phases {
		if p.Status != results.StatusCompleted {
			continue
		}
		for _, v := range p.ClientLimits {
			out = append(out, ClientLimit{Phase: p.Name, Host: v.Host, Kind: v.Kind, Text: v.Text})
		}
	}
	return out
}

// ClientLimits reads the limits of their own the hosts reached in a run's
// phases, by phase, host and verdict; none for a run whose hosts reached
// none (or a catalog older than the verdicts).
func (c *Catalog) ClientLimits(ctx context.Context, runID string) ([]ClientLimit, error) {
	if c.schema < 5 {
		return nil, nil
	}
	rows, err := c.db.QueryContext(ctx, c.q(`SELECT phase, host, kind, verdict FROM sb_client_limits WHERE run_id = ? ORDER BY phase, host, verdict`), runID)
	if err != nil {
		return nil, c.clean(err)
	}
	defer rows.Close()
	var out []ClientLimit
	for rows.Next() {
		var l ClientLimit
		if err := rows.Scan(&l.Phase, &l.Host, &l.Kind, &l.Text); err != nil {
			return nil, c.clean(err)
		}
		out = append(out, l)
	}
	return out, c.clean(rows.Err())
}
