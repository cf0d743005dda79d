package report

import (
	"bytes"
	"fmt"
	"io"

	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/safetext"
	"github.com/storbench/storbench/internal/units"
)

// LimitVerdict says how a figure kept its limit: "met", "CROSSED", or
// "not measured" (neither met nor crossed: the run fails as for a crossed
// one, exit 4).
func LimitVerdict(l results.LimitResult) string {
	switch {
	case l.Value == nil:
		return "not measured"
	case l.Met():
		return "met"
	}
	return "CROSSED"
}

// LimitValue writes a limit's measured figure in its unit.
func LimitValue(l results.LimitResult) string {
	if l.Value == nil {
		return "-"
	}
	return unitValue(*l.Value, l.Unit)
}

// unitValue writes v in unit (ns, ops/s, B/s, or a count).
func unitValue(v float64, unit string) string {
	switch unit {
	case "ns":
		return units.Latency(v)
	case "ops/s":
		return units.Rate(v, "ops/s")
	case "B/s":
		return units.Bandwidth(v)
	}
	return fmt.Sprintf("%g", v)
}

// LimitsText writes one line per limit of a phase: the limit, the figure
// and the verdict.
func LimitsText(w io.Writer, ps *results.PhaseSummary) {
	for _, l := range ps.Limits {
		fmt.Fprintf(w, "    limit %s: %s, %s\n", safetext.Escape(l.Limit), LimitValue(l), LimitVerdict(l))
	}
}

// limitsMarkdown writes summary.md's table of limits, when any was set.
func limitsMarkdown(b *bytes.Buffer, phases []results.PhaseSummary) {
	var rows []string
	for _, p := range phases {
		for _, l := range p.Limits {
			rows = append(rows, fmt.Sprintf("| %s | %s | %s |\n", mdCell(l.Limit), LimitValue(l), LimitVerdict(l)))
		}
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("\n## Limits\n\n| Limit | Measured | Verdict |\n|---|---:|---|\n")
	for _, r := range rows {
		b.WriteString(r)
	}
}
