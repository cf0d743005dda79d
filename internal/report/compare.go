package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/storbench/storbench/internal/analyze"
	"github.com/storbench/storbench/internal/safetext"
	"github.com/storbench/storbench/internal/units"
)

// figureValue formats a compared figure's value in its unit.
func figureValue(unit string, v float64) string {
	switch unit {
	case "B/s":
		return units.Bandwidth(v)
	case "ns":
		return units.Latency(v)
	}
	return units.Rate(v, "ops/s")
}

func figureDelta(f analyze.Figure) string {
	sign := "+"
	d := f.Delta
	if d < 0 {
		sign, d = "-", -d
	}
	return fmt.Sprintf("%s%s (%+.2f%%)", sign, figureValue(f.Unit, d), f.RelPct)
}

func figureTest(f analyze.Figure) string {
	if f.P > 0 || strings.HasPrefix(f.Method, "Welch") {
		return fmt.Sprintf("%s, p=%.3g", f.Method, f.P)
	}
	return f.Method
}

// CompareText writes a comparison: settings that changed, then per phase
// and operation every figure before -> after with its change and verdict.
func CompareText(w io.Writer, c *analyze.Comparison) {
	c = safetext.Copy(c)

	fmt.Fprintf(w, "Compare %s -> %s\n", c.Before, c.After)
	fmt.Fprintf(w, "Verdicts at %s confidence; a change is called faster or slower only if the test says so and it exceeds %.1f%%.\n", confidenceText(c.Confidence), c.ThresholdPct)
	for _, n := range c.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	for _, l := range clientLimitLines(c) {
		fmt.Fprintln(w, l)
	}
	if len(c.Settings) > 0 {
		fmt.Fprintln(w, "\nSettings changed:")
		for _, s := range c.Settings {
			fmt.Fprintf(w, "  %s: %s -> %s\n", s.Key, s.Before, s.After)
		}
	}
	for _, p := range c.Phases {
		fmt.Fprintf(w, "\n== %s ==\n", phaseHead(p, true))
		for _, o := range p.Ops {
			fmt.Fprintf(w, "Operation %s:\n", o.Op)
			for _, f := range o.Figures {
				fmt.Fprintf(w, "  %-11s %12s -> %-12s %-26s %-12s %s\n", f.Name, figureValue(f.Unit, f.Before), figureValue(f.Unit, f.After),
					figureDelta(f), f.Verdict, figureTest(f))
			}
			// Why a test is not the one expected (a damaged per-second
			// latency file): said under the figures it concerns.
			for _, n := range o.Notes {
				fmt.Fprintf(w, "  note: %s\n", n)
			}
		}
	}
	for _, n := range c.OnlyBefore {
		fmt.Fprintf(w, "\nonly in %s: %s\n", c.Before, n)
	}
	for _, n := range c.OnlyAfter {
		fmt.Fprintf(w, "\nonly in %s: %s\n", c.After, n)
	}
	eventCompareText(w, c.Events)
}

// CompareMarkdown writes a comparison as Markdown tables.
func CompareMarkdown(w io.Writer, c *analyze.Comparison) {
	c = plainMD(c)

	fmt.Fprintf(w, "# Compare %s -> %s\n\n", c.Before, c.After)
	fmt.Fprintf(w, "Verdicts at %s confidence, threshold %.1f%%.\n", confidenceText(c.Confidence), c.ThresholdPct)
	for _, n := range c.Notes {
		fmt.Fprintf(w, "\n> Note: %s\n", n)
	}
	if lines := clientLimitLines(c); len(lines) > 0 {
		fmt.Fprintf(w, "\n> %s\n", mdCell(strings.Join(lines, "\n> ")))
	}
	if len(c.Settings) > 0 {
		fmt.Fprintln(w, "\n| Setting | Before | After |\n|---|---|---|")
		for _, s := range c.Settings {
			fmt.Fprintf(w, "| %s | %s | %s |\n", mdCell(s.Key), mdCell(s.Before), mdCell(s.After))
		}
	}
	for _, p := range c.Phases {
		fmt.Fprintf(w, "\n## %s\n\n", phaseHead(p, false))
		fmt.Fprintln(w, "| Op | Figure | Before | After | Change | Verdict | Test |\n|---|---|---:|---:|---:|---|---|")
		for _, o := range p.Ops {
			for _, f := range o.Figures {
				fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", o.Op, f.Name, figureValue(f.Unit, f.Before), figureValue(f.Unit, f.After),
					figureDelta(f), f.Verdict, mdCell(figureTest(f)))
			}
		}
		for _, o := range p.Ops {
			for _, n := range o.Notes {
				fmt.Fprintf(w, "\n> Note (%s): %s\n", o.Op, n)
			}
		}
	}
	eventCompareMarkdown(w, c.Events)
}

// phaseHead names a compared phase with its engine and, when asked, how
// many iterations (runs, for groups) each side has; a comparison of the
// catalog's groups knows no engine.
func phaseHead(p analyze.PhaseComparison, iterations bool) string {
	var in []string
	if p.Engine != "" {
		in = append(in, string(p.Engine))
	}
	if iterations && (p.Iterations[0] > 1 || p.Iterations[1] > 1) {
		in = append(in, fmt.Sprintf("%d -> %d iterations", p.Iterations[0], p.Iterations[1]))
	}
	if len(in) == 0 {
		return p.Name
	}
	return p.Name + " (" + strings.Join(in, ", ") + ")"
}

// clientLimitLines say, first, where a host's verdict on its own limits
// differs between the runs: there the figures below may compare a
// client with the storage, whatever their percentages say.
func clientLimitLines(c *analyze.Comparison) []string {
	if len(c.ClientLimits) == 0 {
		return nil
	}
	out := []string{"Client limits differ between the runs (the figures of these phases may be a client's in one run and the storage's in the other):"}
	words := func(v []string) string {
		if len(v) == 0 {
			return "none"
		}
		return strings.Join(v, "; ")
	}
	for _, l := range c.ClientLimits {
		out = append(out, fmt.Sprintf("  %s, host %s: %s -> %s", l.Phase, l.Host, words(l.Before), words(l.After)))
	}
	return out
}

func mdCell(s string) string { return strings.ReplaceAll(s, "|", "/") }
