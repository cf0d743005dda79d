package results

import fig "github.com/storbench/storbench/internal/figures"

// Figures lists the figures of one operation, in the order of
// fig.Names. A figure not measured is left out, never given as 0: no
// rate or bw without a window to measure over, no bw for an operation that
// moves no bytes, no latency where none was recorded. Errors are always
// counted.
func (o OpSummary) Figures() []fig.Named {
	var out []fig.Named
	if o.OpsPerS != nil {
		out = append(out, fig.Named{Name: fig.Rate, Value: *o.OpsPerS})
	}
	if o.BwBytesPerS != nil {
		out = append(out, fig.Named{Name: fig.BW, Value: *o.BwBytesPerS})
	}
	if o.Lat != nil {
		out = append(out, fig.Named{Name: fig.Mean, Value: o.Lat.MeanNs}, fig.Named{Name: fig.P50, Value: float64(o.Lat.P50Ns)},
			fig.Named{Name: fig.P99, Value: float64(o.Lat.P99Ns)}, fig.Named{Name: fig.P999, Value: float64(o.Lat.P999Ns)})
	}
	return append(out, fig.Named{Name: fig.Errors, Value: float64(o.Errors)})
}

// JudgeLimit is l's entry for a phase whose totals are ops: the figure's
// value and whether it keeps the limit, both absent when the figure was
// not measured (no such operation, or the figure left out: Figures).
func JudgeLimit(l fig.Limit, ops []OpSummary) LimitResult {
	lr := LimitResult{Limit: l.String(), Unit: fig.Unit(l.Ref.Name)}
	for _, o := range ops {
		if o.Op != l.Ref.Op {
			continue
		}
		for _, f := range o.Figures() {
			if f.Name == l.Ref.Name {
				v, met := f.Value, l.Met(f.Value)
				lr.Value, lr.Passed = &v, &met
			}
		}
	}
	return lr
}
