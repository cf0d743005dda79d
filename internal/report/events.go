package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"

	"github.com/storbench/storbench/internal/analyze"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/safetext"
)

// chartMark is an event drawn on a chart over time: a vertical line at
// its start, labelled, and a light span to its end when it lasted.
type chartMark struct {
	X, End float64
	Label  string
}

// eventMarks are a phase's events that ran, on an axis starting at t0
// (Unix ns): x in seconds into the phase.
func eventMarks(evs []model.PhaseEvent, t0 int64) []chartMark {
	var out []chartMark
	for _, e := range evs {
		if e.Start == nil || t0 == 0 {
			continue
		}
		m := chartMark{X: float64(e.Start.UnixNano()-t0) / 1e9, Label: e.Name}
		m.End = m.X
		if e.End != nil {
			m.End = float64(e.End.UnixNano()-t0) / 1e9
		}
		out = append(out, m)
	}
	return out
}

// widenForMarks stretches an x range so that every mark shows.
func widenForMarks(marks []chartMark, xmin, xmax float64) (float64, float64) {
	for _, m := range marks {
		xmin, xmax = math.Min(xmin, m.X), math.Max(xmax, m.X)
	}
	return xmin, xmax
}

// drawMarks draws the marks (class "ev", data-event naming the event) on
// a plot whose x maps through px, from top to bottom.
func drawMarks(b *strings.Builder, marks []chartMark, px func(float64) float64, xmax, top, bottom float64) {
	for k, m := range marks {
		x := px(m.X)
		fmt.Fprintf(b, `<g class="ev" data-event="%s" data-x="%.3f">`, template.HTMLEscapeString(m.Label), m.X)
		if end := math.Min(m.End, xmax); end > m.X {
			fmt.Fprintf(b, `<rect x="%.1f" y="%g" width="%.1f" height="%g" fill="#888" fill-opacity="0.12"/>`, x, top, px(end)-x, bottom-top)
		}
		fmt.Fprintf(b, `<path d="M%.1f %gV%g" stroke="#333" stroke-width="1" stroke-dasharray="4 3"/>`, x, top, bottom)
		fmt.Fprintf(b, `<text class="evt" font-size="10" fill="#333" x="%.1f" y="%g">%s</text></g>`, x+3, top+10+float64(k%4)*11, template.HTMLEscapeString(truncate(m.Label, 24)))
	}
}

// htmlEvent is one event of a phase in the report's table.
type htmlEvent struct {
	Name, Where, Planned, Ran, Outcome string
	// Impact says what it did to each operation's figure.
	Impact []string
}

// eventRows are a phase's events for the report's table.
func eventRows(evs []model.PhaseEvent) []htmlEvent {
	var out []htmlEvent
	for _, e := range evs {
		r := htmlEvent{Name: e.Name, Where: "controller", Planned: fmt.Sprintf("%.1fs", e.PlannedS), Ran: notMeasured}
		if e.Host != "" {
			r.Where = e.Host
		}
		what := e.Action
		if e.Command != "" {
			what = e.Command
		}
		r.Where = what + " on " + r.Where
		if e.StartS != nil && e.EndS != nil {
			r.Ran = fmt.Sprintf("%.1fs to %.1fs", *e.StartS, *e.EndS)
		}
		r.Outcome = "done"
		if e.Exit != nil {
			r.Outcome = fmt.Sprintf("exit %d", *e.Exit)
		}
		if e.Error != "" {
			r.Outcome = e.Error
		}
		for _, im := range e.Impact {
			r.Impact = append(r.Impact, ImpactText(im))
		}
		out = append(out, r)
	}
	return out
}

// ImpactText says in a line what an event did to one operation: the
// figure before, the lowest after, the time under 90% of it, the time to
// recover (or that it did not), the errors meanwhile, and from when it
// was measured (the event's effect, on the charts' time axis).
func ImpactText(im model.EventImpact) string {
	rec := "recovered: never under 90%"
	switch {
	case im.RecoverS != nil && im.Note != "":
		rec = fmt.Sprintf("recovered in %.0fs (%s)", *im.RecoverS, im.Note)
	case im.RecoverS != nil:
		rec = fmt.Sprintf("recovered in %.0fs", *im.RecoverS)
	case im.NotRecovered:
		rec = "recovery: absent (not back to 90% by the phase's end)"
	}
	text := fmt.Sprintf("%s: before %s %s, lowest %s at %.0fs, %.0fs under 90%%, %s, %d errors",
		im.Op, sig(im.Before), im.Unit, sig(im.Lowest), im.LowestAtS, im.BelowS, rec, im.Errors)
	if im.EffectS != nil {
		text += fmt.Sprintf(" (from its effect at %.1fs)", *im.EffectS)
	}
	return text
}

// sig prints a figure with three significant digits ("1.23k" style is
// the charts'; text keeps plain numbers).
func sig(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// EventsText writes a phase's events for `analyze`: each as it ran, then
// what it did to each operation's figure.
func EventsText(w io.Writer, evs []model.PhaseEvent) {
	evs = safetext.Copy(evs)

	if len(evs) == 0 {
		return
	}
	fmt.Fprintf(w, "\n-- Events --\n")
	for _, e := range evs {
		fmt.Fprintf(w, "Event %s\n", eventLine(e))
		for _, im := range e.Impact {
			fmt.Fprintf(w, "  %s\n", ImpactText(im))
		}
		if len(e.Impact) == 0 && e.StartS != nil {
			fmt.Fprintf(w, "  effect: absent (no operation ran a full second before the event took effect and one after it, before the next event began)\n")
		}
	}
}

// eventLine says an event in a line: its name, what and where, when it
// was due and ran, how it ended.
func eventLine(e model.PhaseEvent) string {
	rows := eventRows([]model.PhaseEvent{e})
	r := rows[0]
	return fmt.Sprintf("%s: %s, due %s, ran %s: %s", r.Name, r.Where, r.Planned, r.Ran, r.Outcome)
}

// eventCompareText writes the event windows of a comparison: each phase
// healthy and during the event, with the verdict.
func eventCompareText(w io.Writer, evs []analyze.EventComparison) {
	if len(evs) == 0 {
		return
	}
	fmt.Fprintln(w, "\n== Events: the same seconds of the phase healthy and during the event ==")
	for _, e := range evs {
		fmt.Fprintf(w, "%s\n  %s %s -> %s %s  %+.1f%%  %s  %s\n", eventWindowName(e), e.Op, sig(e.Healthy), sig(e.During), e.Unit, e.RelPct, e.Verdict, e.Method)
	}
}

// eventCompareMarkdown is eventCompareText as a table.
func eventCompareMarkdown(w io.Writer, evs []analyze.EventComparison) {
	if len(evs) == 0 {
		return
	}
	fmt.Fprint(w, "\n## Events: the same seconds healthy and during the event\n\n")
	fmt.Fprintln(w, "| Phase, event, window | Op | Healthy | During | Change | Verdict | Test |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---|---|")
	for _, e := range evs {
		fmt.Fprintf(w, "| %s | %s | %s %s | %s %s | %+.1f%% | %s | %s |\n", mdCell(eventWindowName(e)), e.Op, sig(e.Healthy), e.Unit, sig(e.During), e.Unit, e.RelPct, e.Verdict, mdCell(e.Method))
	}
}

// eventCmpRows are the event windows as rows of the report's comparison.
func eventCmpRows(evs []analyze.EventComparison) []htmlCmpRow {
	var out []htmlCmpRow
	for _, e := range evs {
		out = append(out, htmlCmpRow{Phase: eventWindowName(e), Op: e.Op, Figure: e.Unit + " in the window (healthy, during)",
			Before: sig(e.Healthy) + " " + e.Unit, After: sig(e.During) + " " + e.Unit, Change: fmt.Sprintf("%+.1f%%", e.RelPct), Verdict: e.Verdict, Test: e.Method})
	}
	return out
}

// eventWindowName names an event window: "get: during stop gateway
// (run B), seconds 2-4".
func eventWindowName(e analyze.EventComparison) string {
	return fmt.Sprintf("%s: during %s (in %s), seconds %.0f-%.0f", e.Phase, e.Event, e.Degraded, e.FromS, e.ToS)
}

// eventsMarkdown lists the events of every phase that had some, for
// summary.md.
func eventsMarkdown(b *bytes.Buffer, phases []results.PhaseSummary) {
	first := true
	for _, p := range phases {
		for _, e := range p.Events {
			if first {
				b.WriteString("\n## Events\n\n")
				first = false
			}
			fmt.Fprintf(b, "- %s: %s\n", p.Name, strings.ReplaceAll(eventLine(e), "|", "/"))
			for _, im := range e.Impact {
				fmt.Fprintf(b, "  - %s\n", ImpactText(im))
			}
		}
	}
}
