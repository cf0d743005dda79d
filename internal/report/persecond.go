package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/storbench/storbench/internal/analyze"
	"github.com/storbench/storbench/internal/safetext"
	"github.com/storbench/storbench/internal/units"
)

// PerSecondCSVHeader are the columns of `analyze --per-second --csv`.
var PerSecondCSVHeader = []string{"phase", "op", "second", "start_time", "ops", "ops_per_s", "bw_bytes_per_s", "errors", "hosts",
	"requests", "lat_mean_ns", "lat_p50_ns", "lat_p99_ns", "lat_p99_9_ns"}

// PerSecondCSV writes one line per second (segment) of every operation of
// every phase; a figure not measured is an empty cell.
func PerSecondCSV(w io.Writer, a *analyze.PerSecond) error {
	a = safetext.Copy(a)

	cw := csv.NewWriter(w)
	if err := cw.Write(PerSecondCSVHeader); err != nil {
		return err
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
	u := func(x uint64) string { return strconv.FormatUint(x, 10) }
	i := func(x int64) string { return strconv.FormatInt(x, 10) }
	for _, p := range a.Phases {
		for _, o := range p.Ops {
			for _, r := range o.Rows {
				bw := ""
				if r.BwBytesPerS != nil {
					bw = f(*r.BwBytesPerS)
				}
				lat := []string{"", "", "", "", ""}
				if l := r.Lat; l != nil {
					lat = []string{u(l.Requests), f(l.MeanNs), i(l.P50Ns), i(l.P99Ns), i(l.P999Ns)}
				}
				rec := append([]string{p.Name, o.Op, strconv.Itoa(r.Second), r.Start.Format(time.RFC3339Nano), u(r.Ops), f(r.OpsPerS), bw,
					u(r.Errors), strconv.Itoa(r.Hosts)}, lat...)
				if err := cw.Write(rec); err != nil {
					return err
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// PerSecondJSON writes the per-second analysis as indented JSON.
func PerSecondJSON(w io.Writer, a *analyze.PerSecond) error { return indentedJSON(w, a) }

// PerSecondText writes a table per phase and operation: second, operations,
// throughput, errors and the second's latency percentiles.
func PerSecondText(w io.Writer, a *analyze.PerSecond) {
	a = safetext.Copy(a)

	fmt.Fprintf(w, "Per-second analysis of %s; rows of %s, all hosts added", a.Source, seconds(a.Options.SegmentS))
	if a.Options.Host != "" {
		fmt.Fprintf(w, " (host %s only)", a.Options.Host)
	}
	if a.Options.SkipS > 0 {
		fmt.Fprintf(w, ", first %s of each operation skipped", seconds(a.Options.SkipS))
	}
	fmt.Fprintln(w)
	for _, n := range a.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	for _, p := range a.Phases {
		fmt.Fprintf(w, "\n== Phase %s (%s, %d host(s)), seconds from %s ==\n", p.Name, p.Engine, len(p.Hosts), p.Start.Format("2006-01-02 15:04:05.000 MST"))
		for _, o := range p.Ops {
			fmt.Fprintf(w, "\nOperation %s:\n", o.Op)
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "second\tops\tops/s\tthroughput\terrors\tmean\tp50\tp99\tp99.9\t")
			for _, r := range o.Rows {
				mean, p50, p99, p999 := notMeasured, notMeasured, notMeasured, notMeasured
				if l := r.Lat; l != nil {
					mean, p50, p99, p999 = units.Latency(l.MeanNs), units.Latency(float64(l.P50Ns)), units.Latency(float64(l.P99Ns)), units.Latency(float64(l.P999Ns))
				}
				fmt.Fprintf(tw, "%d\t%d\t%.1f\t%s\t%d\t%s\t%s\t%s\t%s\t\n", r.Second, r.Ops, r.OpsPerS, bwText(r.BwBytesPerS), r.Errors, mean, p50, p99, p999)
			}
			tw.Flush()
		}
		for _, n := range p.Notes {
			fmt.Fprintf(w, "note: %s\n", n)
		}
	}
}

// PerSecondMarkdown writes the per-second tables in Markdown.
func PerSecondMarkdown(w io.Writer, a *analyze.PerSecond) {
	a = plainMD(a)

	fmt.Fprintf(w, "# Per-second analysis of %s\n\nRows of %s, all hosts added; latency from each second's merged histogram.\n", a.Source, seconds(a.Options.SegmentS))
	for _, n := range a.Notes {
		fmt.Fprintf(w, "\n> Note: %s\n", n)
	}
	for _, p := range a.Phases {
		for _, o := range p.Ops {
			fmt.Fprintf(w, "\n## %s %s\n\n", p.Name, o.Op)
			fmt.Fprintln(w, "| Second | Ops | Ops/s | Throughput | Errors | Mean | p50 | p99 | p99.9 |")
			fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
			for _, r := range o.Rows {
				mean, p50, p99, p999 := notMeasured, notMeasured, notMeasured, notMeasured
				if l := r.Lat; l != nil {
					mean, p50, p99, p999 = units.Latency(l.MeanNs), units.Latency(float64(l.P50Ns)), units.Latency(float64(l.P99Ns)), units.Latency(float64(l.P999Ns))
				}
				fmt.Fprintf(w, "| %d | %d | %.1f | %s | %d | %s | %s | %s | %s |\n", r.Second, r.Ops, r.OpsPerS, bwText(r.BwBytesPerS), r.Errors, mean, p50, p99, p999)
			}
		}
		for _, n := range p.Notes {
			fmt.Fprintf(w, "\nNote: %s\n", n)
		}
	}
	fmt.Fprintf(w, "\n%s\n", notMeasuredLegend)
}
