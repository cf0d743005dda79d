package report

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/safetext"
	"github.com/storbench/storbench/internal/stats"
	"github.com/storbench/storbench/internal/units"
)

// metricText formats a headline metric for people.
func metricText(metric string, v float64) string {
	switch metric {
	case "bw_bytes_per_s":
		return units.Bandwidth(v)
	case "lat_ns_mean", "lat_ns_p99":
		return units.Latency(v)
	default:
		return units.Rate(v, "ops/s")
	}
}

// confidenceText writes a confidence level as a percentage: 0.95 -> "95%",
// 0.995 -> "99.5%".
func confidenceText(c float64) string {
	return strconv.FormatFloat(math.Round(c*1e6)/1e4, 'f', -1, 64) + "%"
}

// sweepConfidence is the confidence of a run's sweep intervals (one for the
// whole run: the --confidence it ran with).
func sweepConfidence(sws []results.Sweep) float64 {
	for _, sw := range sws {
		if c := sw.Metrics[sw.Headline].Confidence; c > 0 {
			return c
		}
	}
	return stats.DefaultConfidence
}

// metricName is the headline metric's name in tables.
func metricName(formats []string, metric string) string {
	switch metric {
	case "bw_bytes_per_s":
		return "bandwidth"
	case "ops_per_s":
		if slices.Contains(formats, model.FormatWekatester) {
			return "IOPS"
		}
		return "ops/s"
	case "lat_ns_mean":
		return "latency mean"
	}
	return metric
}

func pointText(p []results.KV) string {
	if len(p) == 0 {
		return "-"
	}
	parts := make([]string, len(p))
	for i, kv := range p {
		parts[i] = kv.Key + "=" + kv.Value
	}
	return strings.Join(parts, " ")
}

// SweepText prints each sweep point's statistics across iterations, and the
// score, after a run.
func SweepText(w io.Writer, s *results.Summary) {
	s = safetext.Copy(s)

	if len(s.Sweeps) > 0 {
		fmt.Fprintf(w, "\nacross iterations (mean, sample stddev, CoV, %s confidence interval):\n", confidenceText(sweepConfidence(s.Sweeps)))
		for _, sw := range s.Sweeps {
			st, ok := sw.Metrics[sw.Headline]
			if !ok {
				fmt.Fprintf(w, "    %s %s %s %s: not measured\n", sw.Group, pointText(sw.Point), sw.Op, metricName(sw.TextFormats(), sw.Headline))
				continue
			}
			fmt.Fprintf(w, "    %s %s %s %s: %s", sw.Group, pointText(sw.Point), sw.Op, metricName(sw.TextFormats(), sw.Headline), metricText(sw.Headline, st.Mean))
			if st.N > 1 {
				fmt.Fprintf(w, " (δ %s, CoV %.2f%%, %s CI %s .. %s, n=%d)", metricText(sw.Headline, st.Stddev), 100*st.CoV,
					confidenceText(st.Confidence), metricText(sw.Headline, st.CILow), metricText(sw.Headline, st.CIHigh), st.N)
			}
			if sw.Unstable {
				fmt.Fprint(w, "  UNSTABLE: iterations disagree")
			}
			fmt.Fprintln(w)
		}
	}
	// No default score (see htmlData): only IO500's, when asked for.
	IO500Text(w, s.IO500)
}

// SweepTSV renders sweep.tsv, the spreadsheet line of the Gluster procedure
// for every sweep point: CoV, then the total across hosts and the lowest,
// highest and average host, each a mean over iterations, then the mean's
// stddev and confidence interval (its columns named by the confidence:
// ci95_low, ci95_high at the default 95%). Bandwidth is in MiB/s, rates in ops/s, latency in
// microseconds. Nothing is written for a run without sweeps.
func SweepTSV(s *results.Summary) []byte {
	s = safetext.Copy(s)

	if len(s.Sweeps) == 0 {
		return nil
	}
	var b bytes.Buffer
	ci := "ci" + strings.TrimSuffix(confidenceText(sweepConfidence(s.Sweeps)), "%")
	b.WriteString("group\tpoint\top\tmetric\tunit\tn\tcov\ttot\tmin_host\tmax_host\tavg_host\tstddev\t" + ci + "_low\t" + ci + "_high\tunstable\n")
	for _, sw := range s.Sweeps {
		st, ok := sw.Metrics[sw.Headline]
		if !ok {
			continue // a headline not measured has no spreadsheet line
		}
		unit, scale := tsvUnit(sw.Headline)
		h := results.Stat3{Min: st.Mean, Max: st.Mean, Avg: st.Mean}
		if sw.Hosts != nil {
			h = *sw.Hosts
		}
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\t%d\t%.2f%%\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%t\n",
			sw.Group, pointText(sw.Point), sw.Op, sw.Headline, unit, st.N, 100*st.CoV,
			st.Mean/scale, h.Min/scale, h.Max/scale, h.Avg/scale, st.Stddev/scale, st.CILow/scale, st.CIHigh/scale, sw.Unstable)
	}
	return b.Bytes()
}

func tsvUnit(metric string) (string, float64) {
	switch metric {
	case "bw_bytes_per_s":
		return "MiB/s", 1 << 20
	case "lat_ns_mean", "lat_ns_p99":
		return "us", 1e3
	}
	return "ops/s", 1
}

// sweepMarkdown writes the sweep statistics table and, for every group
// whose matrix has two or more keys, pivot tables shaped like the seeds'
// (rows: the first key, columns: the last, one table per value of the keys
// between).
func sweepMarkdown(b *bytes.Buffer, s *results.Summary) {
	if len(s.Sweeps) == 0 {
		return
	}
	b.WriteString("\n## Sweeps and iterations\n\n")
	b.WriteString("| Group | Point | Op | Metric | n | Mean | Std dev | CoV | " + confidenceText(sweepConfidence(s.Sweeps)) + " CI | Min | Max |\n")
	b.WriteString("|---|---|---|---|---:|---:|---:|---:|---|---:|---:|\n")
	for _, sw := range s.Sweeps {
		st, ok := sw.Metrics[sw.Headline]
		if !ok {
			fmt.Fprintf(b, "| %s | %s | %s | %s | 0 | not measured | - | - | - | - | - |\n", sw.Group, pointText(sw.Point), sw.Op, metricName(sw.TextFormats(), sw.Headline))
			continue
		}
		f := func(v float64) string { return metricText(sw.Headline, v) }
		sd, cov, ci := "-", "-", "-"
		if st.N > 1 {
			sd, cov, ci = f(st.Stddev), fmt.Sprintf("%.2f%%", 100*st.CoV), f(st.CILow)+" .. "+f(st.CIHigh)
		}
		if sw.Unstable {
			cov += " ⚠ unstable"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %d | %s | %s | %s | %s | %s | %s |\n",
			sw.Group, pointText(sw.Point), sw.Op, metricName(sw.TextFormats(), sw.Headline), st.N, f(st.Mean), sd, cov, ci, f(st.Min), f(st.Max))
	}
	pivots(b, s.Sweeps)
}

// rwNames reads fio's rw values the way the seeds' tables do.
var rwNames = map[string]string{
	"read": "Sequential Read", "write": "Sequential Write", "randread": "Random Read",
	"randwrite": "Random Write", "rw": "Sequential Mixed", "readwrite": "Sequential Mixed", "randrw": "Random Mixed",
}

func rowName(key, v string) string {
	if key == "rw" {
		if n, ok := rwNames[v]; ok {
			return n
		}
	}
	return key + "=" + v
}

func pivots(b *bytes.Buffer, sws []results.Sweep) {
	type gk struct{ group, op string }
	var order []gk
	byGroup := map[gk][]results.Sweep{}
	for _, sw := range sws {
		k := gk{sw.Group, sw.Op}
		if len(sw.Point) < 2 {
			continue
		}
		if _, ok := byGroup[k]; !ok {
			order = append(order, k)
		}
		byGroup[k] = append(byGroup[k], sw)
	}
	for _, k := range order {
		group := byGroup[k]
		first := group[0].Point
		rowKey, colKey := first[0].Key, first[len(first)-1].Key
		// One table per combination of the keys between rows and columns.
		var tables []string
		byTable := map[string][]results.Sweep{}
		for _, sw := range group {
			t := pointText(sw.Point[1 : len(sw.Point)-1])
			if _, ok := byTable[t]; !ok {
				tables = append(tables, t)
			}
			byTable[t] = append(byTable[t], sw)
		}
		for _, t := range tables {
			cells := byTable[t]
			rows := results.SortedPointValues(cells, rowKey)
			cols := results.SortedPointValues(cells, colKey)
			title := k.group + " " + k.op
			if t != "-" && t != "" {
				title += " (" + t + ")"
			}
			name := metricName(cells[0].TextFormats(), cells[0].Headline)
			fmt.Fprintf(b, "\n### %s: %s\n\n", title, name)
			fmt.Fprintf(b, "| %s / %s |", name, colKey)
			for _, c := range cols {
				fmt.Fprintf(b, " %s=%s |", colKey, c)
			}
			b.WriteString("\n|---|" + strings.Repeat("---:|", len(cols)) + "\n")
			for _, r := range rows {
				fmt.Fprintf(b, "| %s |", rowName(rowKey, r))
				for _, c := range cols {
					cell := " - |"
					for _, sw := range cells {
						st, ok := sw.Metrics[sw.Headline]
						if ok && results.PointValue(sw.Point, rowKey) == r && results.PointValue(sw.Point, colKey) == c {
							cell = " " + metricText(sw.Headline, st.Mean)
							if sw.Unstable {
								cell += " ⚠"
							}
							cell += " |"
						}
					}
					b.WriteString(cell)
				}
				b.WriteString("\n")
			}
		}
	}
}
