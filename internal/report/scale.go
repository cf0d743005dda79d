package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/storbench/storbench/internal/analyze"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/safetext"
	"github.com/storbench/storbench/internal/units"
)

// ScaleText prints each scale of the run: its steps (load, rate, p99)
// with the knee marked, why it stopped, and the stopping rule.
func ScaleText(w io.Writer, s *results.Summary) {
	s = safetext.Copy(s)
	for _, sc := range s.Scales {
		fmt.Fprintf(w, "\n%s\n", scaleHead(sc))
		for _, pt := range sc.Steps {
			fmt.Fprintf(w, "    %s=%-6d %-14s p99 %-10s%s\n", sc.Param, pt.Load, scaleRate(pt), scaleP99(pt), kneeMark(sc, pt))
		}
		if sc.Stop != "" {
			fmt.Fprintf(w, "    stopped: %s\n", sc.Stop)
		}
	}
	if len(s.Scales) > 0 {
		fmt.Fprintf(w, "    (%s)\n", analyze.ScaleRuleText)
	}
}

// scaleHead is a scale's first line: its group and its knee.
func scaleHead(sc results.Scale) string {
	switch {
	case sc.Knee == nil && sc.StopKind == model.ScaleLimit:
		// Only a limit stops a scale at its first step: the other rules
		// compare two steps.
		return fmt.Sprintf("scale %s by %s: no knee (the first step crossed a limit: no load kept it)", sc.Group, sc.Param)
	case sc.Knee == nil:
		return fmt.Sprintf("scale %s by %s: no knee (the scale did not finish)", sc.Group, sc.Param)
	case sc.StopKind == "range":
		return fmt.Sprintf("scale %s by %s: knee at %s=%d or beyond (the range ended)", sc.Group, sc.Param, sc.Param, *sc.Knee)
	}
	return fmt.Sprintf("scale %s by %s: knee at %s=%d", sc.Group, sc.Param, sc.Param, *sc.Knee)
}

func kneeMark(sc results.Scale, pt results.ScalePoint) string {
	if sc.Knee != nil && *sc.Knee == pt.Load {
		return "  <- knee"
	}
	return ""
}

func scaleRate(pt results.ScalePoint) string {
	if pt.OpsPerS == nil {
		return "-"
	}
	return pt.Op + " " + units.Rate(*pt.OpsPerS, "ops/s")
}

func scaleP99(pt results.ScalePoint) string {
	if pt.P99Ns == nil {
		return "-"
	}
	return units.Latency(float64(*pt.P99Ns))
}

// scaleMarkdown writes the scales as tables in summary.md.
func scaleMarkdown(b *bytes.Buffer, s *results.Summary) {
	if len(s.Scales) == 0 {
		return
	}
	b.WriteString("\n## Scales\n")
	for _, sc := range s.Scales {
		fmt.Fprintf(b, "\n%s.\n\n| %s | Rate | p99 | Knee |\n|---:|---:|---:|---|\n", scaleHead(sc), sc.Param)
		for _, pt := range sc.Steps {
			fmt.Fprintf(b, "| %d | %s | %s | %s |\n", pt.Load, scaleRate(pt), scaleP99(pt), strings.TrimPrefix(kneeMark(sc, pt), "  <- "))
		}
		if sc.Stop != "" {
			fmt.Fprintf(b, "\nStopped: %s.\n", sc.Stop)
		}
	}
	fmt.Fprintf(b, "\nRule: %s.\n", analyze.ScaleRuleText)
}

// scaleCharts draws each scale as its p99 latency against its rate, a
// point per step, with the knee marked.
func scaleCharts(scs []results.Scale) []template.HTML {
	var out []template.HTML
	for _, sc := range scs {
		l := chartLine{Name: "steps (" + sc.Param + ")"}
		var marks []chartMark
		for _, pt := range sc.Steps {
			if pt.OpsPerS == nil || pt.P99Ns == nil {
				continue // not measured: no point
			}
			l.X, l.Y = append(l.X, *pt.OpsPerS), append(l.Y, float64(*pt.P99Ns))
			if sc.Knee != nil && *sc.Knee == pt.Load {
				marks = append(marks, chartMark{X: *pt.OpsPerS, Label: fmt.Sprintf("knee %s=%d", sc.Param, pt.Load)})
			}
		}
		if len(l.X) == 0 {
			continue
		}
		out = append(out, svgChart(chartSpec{
			Title: "scale " + sc.Group + ": p99 latency against rate", XLabel: "ops/s", YLabel: "p99 latency",
			Lines: []chartLine{l}, Marks: marks,
			XTick: compact, YTick: func(v float64) string { return compactMetric("lat_ns_p99", v) },
		}))
	}
	return out
}
