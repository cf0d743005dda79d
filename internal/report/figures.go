package report

import (
	"fmt"
	"slices"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/units"
)

// A figure not measured is absent, never 0: these format a figure, or "-"
// when there is none (no byte throughput for an operation that moves no
// bytes, no latency where a fio job switched it off).

// notMeasured is the cell of a figure not measured.
const notMeasured = "-"

// notMeasuredLegend explains notMeasured under tables.
const notMeasuredLegend = "A `-` is a figure not measured: no byte throughput for operations that move no bytes, no latency where a fio job does not record it."

func bwText(p *float64) string {
	if p == nil {
		return notMeasured
	}
	return units.Bandwidth(*p)
}

func rateText(p *float64, unit string) string {
	if p == nil {
		return notMeasured
	}
	return units.Rate(*p, unit)
}

// latency figures of a distribution, for latText.
var (
	latMean = func(l *results.LatencySummary) float64 { return l.MeanNs }
	latP50  = func(l *results.LatencySummary) float64 { return float64(l.P50Ns) }
	latP90  = func(l *results.LatencySummary) float64 { return float64(l.P90Ns) }
	latP99  = func(l *results.LatencySummary) float64 { return float64(l.P99Ns) }
	latP995 = func(l *results.LatencySummary) float64 { return float64(l.P995Ns) }
	latP999 = func(l *results.LatencySummary) float64 { return float64(l.P999Ns) }
)

func latText(l *results.LatencySummary, pick func(*results.LatencySummary) float64) string {
	if l == nil {
		return notMeasured
	}
	return units.Latency(pick(l))
}

// notRecorded says an operation has no latency, in its engine's words: a
// fio job file (whose phases print as wekatester) can switch latency off.
func notRecorded(formats []string) string {
	if slices.Contains(formats, model.FormatWekatester) {
		return "latency not recorded by this job"
	}
	return "latency not recorded"
}

// figRates prints "94.10 MiB/s, 9866.97 obj/s", the unit rate alone for
// operations that move no bytes, "-" when neither was measured.
func figRates(bw, ops *float64, unit string) string {
	switch {
	case ops == nil && bw == nil:
		return notMeasured
	case bw == nil:
		return fmt.Sprintf("%.2f %s", *ops, unit)
	case ops == nil:
		return fmt.Sprintf("%.2f MiB/s", *bw/(1<<20))
	}
	return fmt.Sprintf("%.2f MiB/s, %.2f %s", *bw/(1<<20), *ops, unit)
}
