package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/analyze"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/safetext"
)

// AnalysisCSVHeader are the time series CSV columns, warp's names.
var AnalysisCSVHeader = []string{"index", "op", "host", "duration_s", "bytes", "full_ops", "partial_ops",
	"ops_started", "ops_ended", "errors", "mb_per_sec", "ops_ended_per_sec", "objs_per_sec", "start_time", "end_time"}

// AnalysisCSV writes one line per segment of every operation. Columns a
// results folder cannot know (full, partial and started operations: it
// keeps counts per second, not single requests) are left empty.
func AnalysisCSV(w io.Writer, a *analyze.Analysis) error {
	a = safetext.Copy(a)

	cw := csv.NewWriter(w)
	if err := cw.Write(AnalysisCSVHeader); err != nil {
		return err
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
	u := func(x uint64, exact bool) string {
		if !exact {
			return ""
		}
		return strconv.FormatUint(x, 10)
	}
	for _, p := range a.Phases {
		for _, r := range p.Rows {
			op := r.Op
			if len(a.Phases) > 1 {
				op = p.Name + "/" + r.Op
			}
			if err := cw.Write([]string{strconv.Itoa(r.Index), op, r.Host, f(r.DurationS), f(r.Bytes),
				u(r.FullOps, r.Exact), u(r.PartialOps, r.Exact), u(r.OpsStarted, r.Exact), f(r.OpsEnded), f(r.Errors),
				f(r.MBPerS()), f(r.OpsEndedPerS()), f(r.ObjsPerS()),
				r.Start.Format(time.RFC3339Nano), r.End.Format(time.RFC3339Nano)}); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// AnalysisJSON writes the analysis as indented JSON.
func AnalysisJSON(w io.Writer, a *analyze.Analysis) error { return indentedJSON(w, a) }

// indentedJSON writes v as indented JSON and a newline.
func indentedJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// AnalysisText writes the analysis the way warp's analyze prints it: per
// operation the average over the window, the fastest, median and slowest
// segments, latency from merged histograms, errors, then per host.
func AnalysisText(w io.Writer, a *analyze.Analysis) {
	a = safetext.Copy(a)

	fmt.Fprintf(w, "Analysis of %s (%s)", a.Source, a.Kind)
	if a.Requests > 0 {
		fmt.Fprintf(w, ", %d requests", a.Requests)
	}
	fmt.Fprintf(w, "; segments of %s", seconds(a.Options.SegmentS))
	if a.Options.SkipS > 0 {
		fmt.Fprintf(w, ", first %s of each operation skipped", seconds(a.Options.SkipS))
	}
	fmt.Fprintln(w)
	for _, n := range a.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	for _, p := range a.Phases {
		fmt.Fprintf(w, "\n== Phase %s (%s", p.Name, p.Engine)
		if p.Status != "" && p.Status != results.StatusCompleted {
			fmt.Fprintf(w, ", %s", p.Status)
		}
		fmt.Fprintf(w, ", %d host(s)) ==\n", len(p.Hosts))
		for _, o := range p.Ops {
			opAnalysisText(w, "", p.TextFormats(), o, p.LatencyScope)
		}
		for _, h := range p.PerHost {
			fmt.Fprintf(w, "\n-- Host %s --\n", h.Host)
			for _, o := range h.Ops {
				opAnalysisText(w, "  ", p.TextFormats(), o, "")
			}
		}
		for _, n := range p.Notes {
			fmt.Fprintf(w, "note: %s\n", n)
		}
		EventsText(w, p.Events)
	}
	IO500Text(w, a.IO500)
}

func opAnalysisText(w io.Writer, in string, formats []string, o analyze.OpAnalysis, scope string) {
	fmt.Fprintf(w, "%sOperation %s: ", in, o.Op)
	if len(o.Iterations) > 0 {
		parts := make([]string, len(o.Iterations))
		for i, r := range o.Iterations {
			parts[i] = fmt.Sprintf("%.1f", r)
		}
		fmt.Fprintf(w, "mean %s over %d iterations (%s ops/s)\n", figRates(o.BwBytesPerS, o.OpsPerS, "ops/s"), len(o.Iterations), strings.Join(parts, ", "))
	} else {
		if o.Window.DurationS > 0 {
			fmt.Fprintf(w, "average %s over %s (%.0f operations in the window)\n", figRates(o.BwBytesPerS, o.OpsPerS, "ops/s"), seconds(o.Window.DurationS), o.Ops)
		} else {
			fmt.Fprintf(w, "%.0f operations; no time window was recorded, so no rate\n", o.Ops)
		}
	}
	if s := o.Segments; s != nil {
		fmt.Fprintf(w, "%s  Throughput, split into %d x %s:\n", in, s.N, seconds(s.DurS))
		for _, x := range []struct {
			name string
			r    analyze.Row
		}{{"Fastest", s.Fastest}, {"50% Median", s.Median}, {"Slowest", s.Slowest}} {
			ops, bw := x.r.ObjsPerS(), x.r.Bytes/x.r.DurationS
			bwp := &bw
			if o.BwBytesPerS == nil {
				bwp = nil // an operation that moves no bytes
			}
			fmt.Fprintf(w, "%s   * %s: %s (segment %d, %s)\n", in, x.name, figRates(bwp, &ops, "ops/s"), x.r.Index, x.r.Start.Format("15:04:05.000 MST"))
		}
	}
	if o.Requests > 0 {
		what := "Requests"
		if scope == "phase" {
			what = "Requests (whole phase)"
		}
		if o.Lat == nil {
			fmt.Fprintf(w, "%s  %s: %d: %s\n", in, what, o.Requests, notRecorded(formats))
		} else {
			fmt.Fprintf(w, "%s  %s: %d: %s\n", in, what, o.Requests, latLine(*o.Lat))
		}
		if o.TTFB != nil {
			fmt.Fprintf(w, "%s  First byte: %s\n", in, latLine(*o.TTFB))
		}
	}
	if len(o.BySize) > 0 {
		fmt.Fprintf(w, "%s  By object size (whole phase):\n", in)
		for _, c := range o.BySize {
			fmt.Fprintf(w, "%s   * %s: %s, %d requests", in, c.Size.Label, figRates(c.BwBytesPerS, c.OpsPerS, "ops/s"), c.Ops)
			if c.Errors > 0 {
				fmt.Fprintf(w, ", %d errors", c.Errors)
			}
			fmt.Fprintln(w)
			if c.Lat != nil {
				fmt.Fprintf(w, "%s     - %s\n", in, latLine(*c.Lat))
			}
			if c.TTFB != nil {
				fmt.Fprintf(w, "%s     - First byte: %s\n", in, latLine(*c.TTFB))
			}
		}
	}
	if o.Errors > 0 || len(o.ErrorKinds) > 0 {
		fmt.Fprintf(w, "%s  Errors: %.0f in the window", in, o.Errors)
		if len(o.ErrorKinds) > 0 {
			fmt.Fprintf(w, " (%s)", s3kinds(o.ErrorKinds))
		}
		fmt.Fprintln(w)
	}
}

// AnalysisMarkdown writes the analysis as Markdown tables: one row per
// operation (and per host when there are several).
func AnalysisMarkdown(w io.Writer, a *analyze.Analysis) {
	a = plainMD(a)

	fmt.Fprintf(w, "# Analysis of %s\n\n", a.Source)
	fmt.Fprintf(w, "Segments of %s; skip %s. Latency percentiles from merged histograms.\n", seconds(a.Options.SegmentS), seconds(a.Options.SkipS))
	for _, n := range a.Notes {
		fmt.Fprintf(w, "\n> Note: %s\n", n)
	}
	for _, p := range a.Phases {
		fmt.Fprintf(w, "\n## %s (%s)\n\n", p.Name, p.Engine)
		fmt.Fprintln(w, "| Host | Op | Window | Throughput | Ops/s | Fastest | Median | Slowest | Lat mean | p50 | p99 | p99.9 | Errors |")
		fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
		var notes []string
		row := func(host string, o analyze.OpAnalysis) {
			seg := func(r analyze.Row) string { return fmt.Sprintf("%.1f/s", r.ObjsPerS()) }
			f, m, s := "-", "-", "-"
			if o.Segments != nil {
				f, m, s = seg(o.Segments.Fastest), seg(o.Segments.Median), seg(o.Segments.Slowest)
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.0f |\n", host, o.Op, windowCell(o.Window),
				bwText(o.BwBytesPerS), rateText(o.OpsPerS, ""), f, m, s, latText(o.Lat, latMean), latText(o.Lat, latP50),
				latText(o.Lat, latP99), latText(o.Lat, latP999), o.Errors)
			if o.Lat == nil && o.Requests > 0 {
				notes = append(notes, fmt.Sprintf("%s %s: %s", host, o.Op, notRecorded(p.TextFormats())))
			}
		}
		sizeRows := func(host string, o analyze.OpAnalysis) {
			for _, c := range o.BySize {
				fmt.Fprintf(w, "| %s | %s | %s | %s | %s | - | - | - | %s | %s | %s | %s | %d |\n", host, sizeOpLabel(o.Op, c), windowCell(results.Window{DurationS: c.DurationS}),
					bwText(c.BwBytesPerS), rateText(c.OpsPerS, ""), latText(c.Lat, latMean), latText(c.Lat, latP50),
					latText(c.Lat, latP99), latText(c.Lat, latP999), c.Errors)
			}
		}
		for _, o := range p.Ops {
			row("all", o)
			sizeRows("all", o)
		}
		for _, h := range p.PerHost {
			for _, o := range h.Ops {
				row(h.Host, o)
				sizeRows(h.Host, o)
			}
		}
		if len(notes) > 0 {
			fmt.Fprintln(w)
			for _, n := range notes {
				fmt.Fprintf(w, "- %s\n", n)
			}
		}
		for _, n := range p.Notes {
			fmt.Fprintf(w, "\nNote: %s\n", n)
		}
		if len(p.Events) > 0 {
			fmt.Fprintln(w)
			for _, e := range p.Events {
				fmt.Fprintf(w, "- %s\n", eventLine(e))
				for _, im := range e.Impact {
					fmt.Fprintf(w, "  - %s\n", ImpactText(im))
				}
			}
		}
	}
	io500Markdown(w, a.IO500)
	fmt.Fprintf(w, "\n%s\n", notMeasuredLegend)
}

// windowCell is an analysis window's length, "-" when none was recorded.
func windowCell(w results.Window) string {
	if w.DurationS <= 0 {
		return notMeasured
	}
	return seconds(w.DurationS)
}
