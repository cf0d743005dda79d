// Package report renders results for people: the text printed after each
// phase, summary.md, and (later) the HTML report. Renderers read summaries;
// they never compute figures of their own beyond formatting.
package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/safetext"
	"github.com/storbench/storbench/internal/units"
)

// PhaseText writes a phase's result in its engine's text format: as warp
// prints it (s3), as mdtest's table (md), or as wekatester (fio, and
// engines that name no format).
func PhaseText(w io.Writer, ps *results.PhaseSummary, hosts []*model.HostResult) {
	if ps.TextFormat() == model.FormatWarp {
		S3Text(w, ps, hosts, time.Local)
		return
	}
	FileText(w, ps)
}

// FileText writes a phase's result the way wekatester prints it ("read
// bandwidth: 9.37 GiB/s"), adding IOPS and bandwidth together and the latency
// percentiles wekatester lacks. With several hosts it adds the total and the
// per-host average.
func FileText(w io.Writer, ps *results.PhaseSummary) {
	ps = safetext.Copy(ps)

	if ps.Status != results.StatusCompleted && ps.Error != "" {
		fmt.Fprintf(w, "    %s: %s\n", ps.Status, ps.Error)
	}
	if len(ps.LostHosts) > 0 {
		fmt.Fprintf(w, "    lost hosts: %s\n", strings.Join(ps.LostHosts, ", "))
	}
	if ps.TextFormat() == model.FormatMdtest || hasRates(ps) {
		RateTable(w, "    ", ps.Ops)
		return
	}
	for _, o := range ps.Ops {
		opText(w, ps.TextFormats(), ps.Report, rateUnit(ps), o)
	}
	// The average is over the hosts whose figures are in the total: a
	// host lost before it did anything has none.
	n := 0
	for _, h := range ps.PerHost {
		if len(h.Ops) > 0 {
			n++
		}
	}
	if n > 1 {
		var bw, iops float64
		for _, o := range ps.Ops {
			if o.BwBytesPerS != nil {
				bw += *o.BwBytesPerS
			}
			if o.OpsPerS != nil {
				iops += *o.OpsPerS
			}
		}
		if ps.Report == model.HeadlineIOPS {
			fmt.Fprintf(w, "    total iops: %s\n", units.Rate(iops, rateUnit(ps)))
			fmt.Fprintf(w, "    average iops: %s per host\n", units.Rate(iops/float64(n), rateUnit(ps)))
		} else if ps.Report != model.HeadlineLatency {
			fmt.Fprintf(w, "    total bandwidth: %s\n", units.Bandwidth(bw))
			fmt.Fprintf(w, "    average bandwidth: %s per host\n", units.Bandwidth(bw/float64(n)))
		}
	}
}

func hasRates(ps *results.PhaseSummary) bool {
	for _, o := range ps.Ops {
		if o.Rate != nil {
			return true
		}
	}
	return false
}

// rateUnit is what the phase's engine calls its operation rates, IOPS
// (fio's) where it names none.
func rateUnit(ps *results.PhaseSummary) string {
	if ps.RateUnit != "" {
		return ps.RateUnit
	}
	return "IOPS"
}

func opText(w io.Writer, formats []string, report model.Headline, unit string, o results.OpSummary) {
	bw := bwText(o.BwBytesPerS)
	iops := rateText(o.OpsPerS, unit)
	switch report {
	case model.HeadlineIOPS:
		fmt.Fprintf(w, "    %s iops: %s (%s)\n", o.Op, iops, bw)
	case model.HeadlineLatency:
		mean := strings.TrimPrefix(notRecorded(formats), "latency ")
		if o.Lat != nil {
			mean = units.Latency(o.Lat.MeanNs)
		}
		fmt.Fprintf(w, "    %s latency: %s (%s, %s)\n", o.Op, mean, iops, bw)
	default:
		fmt.Fprintf(w, "    %s bandwidth: %s (%s)\n", o.Op, bw, iops)
	}
	if o.Lat == nil {
		fmt.Fprintf(w, "    %s clat: %s\n", o.Op, notRecorded(formats))
	} else {
		fmt.Fprintf(w, "    %s clat: mean %s, p50 %s, p99 %s, p99.5 %s, p99.9 %s\n", o.Op,
			latText(o.Lat, latMean), latText(o.Lat, latP50), latText(o.Lat, latP99), latText(o.Lat, latP995), latText(o.Lat, latP999))
	}
	if o.Errors > 0 {
		fmt.Fprintf(w, "    %s errors: %d%s\n", o.Op, o.Errors, kinds(o.ErrorKinds))
	}
}

// RateTable writes mdtest's summary table (rates across iterations) with the
// latency percentiles mdtest lacks.
func RateTable(w io.Writer, indent string, ops []results.OpSummary) {
	ops = safetext.Copy(ops)

	fmt.Fprintf(w, "%s%-16s %14s %14s %14s %12s %10s %10s %10s\n", indent, "Operation", "Max", "Min", "Mean", "Std Dev", "p50", "p99", "p99.9")
	for _, o := range ops {
		mx, mn, mean, sd := rateCells(o)
		fmt.Fprintf(w, "%s%-16s %14s %14s %14s %12s %10s %10s %10s\n", indent, o.Op, mx, mn, mean, sd,
			latText(o.Lat, latP50), latText(o.Lat, latP99), latText(o.Lat, latP999))
		if o.Errors > 0 {
			fmt.Fprintf(w, "%s  %s errors: %d%s\n", indent, o.Op, o.Errors, kinds(o.ErrorKinds))
		}
	}
	// md with a stride or a tree for all hosts: how many items each
	// operation found that another host created (no client cache held them).
	var cross []string
	for _, o := range ops {
		if o.CrossHostItems != nil {
			cross = append(cross, fmt.Sprintf("%s %d of %d", o.Op, *o.CrossHostItems, o.Ops))
		}
	}
	if len(cross) > 0 {
		fmt.Fprintf(w, "%screated by another host: %s\n", indent, strings.Join(cross, ", "))
	}
	for _, o := range ops {
		if o.Found != nil {
			fmt.Fprintf(w, "%s%s found %d of %d entries checked\n", indent, o.Op, *o.Found, o.Ops)
		}
	}
}

// rateCells are mdtest's max, min, mean and std dev of an operation's rate
// across iterations ("-" where not measured); an operation that ran once
// has its one rate in the first three.
func rateCells(o results.OpSummary) (mx, mn, mean, sd string) {
	f := func(v float64) string { return fmt.Sprintf("%.3f", v) }
	switch {
	case o.Rate != nil && len(o.Rate.PerIter) > 0:
		return f(o.Rate.Max), f(o.Rate.Min), f(o.Rate.Mean), f(o.Rate.Stddev)
	case o.Rate == nil && o.OpsPerS != nil:
		return f(*o.OpsPerS), f(*o.OpsPerS), f(*o.OpsPerS), f(0)
	}
	return notMeasured, notMeasured, notMeasured, notMeasured
}

func kinds(m map[string]uint64) string {
	if len(m) == 0 {
		return ""
	}
	var parts []string
	for k, v := range m {
		parts = append(parts, fmt.Sprintf("%s=%d", k, v))
	}
	return " (" + strings.Join(sorted(parts), ", ") + ")"
}
