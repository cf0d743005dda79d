package report

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/storbench/storbench/internal/figures"
	"github.com/storbench/storbench/internal/results"
)

// chartLimit is a limit drawn on a chart: a horizontal line at its bound
// (in the chart's unit), labelled with the limit as written.
type chartLimit struct {
	Y       float64
	Label   string
	Crossed bool
}

// limitsOn are the limits of ps on the figures pick takes, with their
// bound divided by per (the chart's unit: 1, or 2^20 for MiB/s).
func limitsOn(ps results.PhaseSummary, pick func(figure string) bool, per float64) []chartLimit {
	var out []chartLimit
	for _, lr := range ps.Limits {
		l, err := figures.ParseLimit(lr.Limit)
		if err != nil || !pick(l.Ref.Name) {
			continue // from a summary.json written by hand: nothing to draw
		}
		out = append(out, chartLimit{Y: l.Value / per, Label: "limit " + lr.Limit, Crossed: lr.Value != nil && !lr.Met()})
	}
	return out
}

// limitsWiden widens the y range [lo, hi] to hold the limits' lines.
func limitsWiden(ls []chartLimit, logY bool, lo, hi float64) (float64, float64) {
	for _, l := range ls {
		if !logY || l.Y > 0 {
			lo, hi = min(lo, l.Y), max(hi, l.Y)
		}
	}
	return lo, hi
}

// drawLimits draws each limit across the plot, dashed, red when crossed,
// with its label; data-limit and data-y let a page find it.
func (p *plot) drawLimits() {
	for k, l := range p.c.Limits {
		if p.c.LogY && l.Y <= 0 {
			continue
		}
		col := "#555"
		if l.Crossed {
			col = "#d62728"
		}
		y := p.py(l.Y)
		label := template.HTMLEscapeString(truncate(strings.TrimSpace(l.Label), maxLegend))
		fmt.Fprintf(p.b, `<g class="limit" data-limit="%s" data-y="%g" data-crossed="%t"><path d="M%g %.1fH%g" stroke="%s" stroke-width="1.5" stroke-dasharray="6 3"/>`,
			template.HTMLEscapeString(l.Label), l.Y, l.Crossed, padL, y, padL+plotW, col)
		fmt.Fprintf(p.b, `<text font-size="10" fill="%s" x="%g" y="%.1f">%s</text></g>`, col, padL+4, y-3-float64(k%2)*11, label)
	}
}

// isFigure picks the figure named name.
func isFigure(name string) func(string) bool { return func(f string) bool { return f == name } }
