package report

import "github.com/storbench/storbench/internal/results"

// ShareFunc says a phase's total figure (figure "bw" in B/s or "rate" in
// ops/s, the catalog's names) as a share of the claim that applies to it,
// or "" when none does.
type ShareFunc func(phase, op, figure string, value float64) string

// add puts the shares of an operation's throughput and rate next to them
// in the summary table's row.
func (f ShareFunc) add(r *htmlRow, phase string, o results.OpSummary) {
	if f == nil {
		return
	}
	if o.BwBytesPerS != nil {
		if s := f(phase, o.Op, "bw", *o.BwBytesPerS); s != "" {
			r.Throughput += " (" + s + ")"
		}
	}
	if o.OpsPerS != nil {
		if s := f(phase, o.Op, "rate", *o.OpsPerS); s != "" {
			r.OpsPerS += " (" + s + ")"
		}
	}
}
