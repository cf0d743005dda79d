package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/storbench/storbench/internal/analyze"
	"github.com/storbench/storbench/internal/figures"
	"github.com/storbench/storbench/internal/results"
)

// manyOps is the most operations a phase has before its charts are
// drawn per phase rather than per operation (md runs up to twelve, one
// after another, most of them for well under a second; s3 mixed four,
// side by side): one chart
// of every operation's rate and its hosts' spread, and the operations
// over time on shared charts, an operation in its colour (OpColor).
// Drawn per operation, a 3-host md phase of 10 operations was 33 charts.
const manyOps = 3

// longOp is how long (seconds) an operation runs before it gets a line
// over time: a shorter one is a dot or two, which the rates chart shows
// better.
const longOp = 5

// longOps are the phase's operations that lasted longOp seconds or more,
// in the phase's order.
func longOps(p results.PhaseSummary) []string {
	var out []string
	for _, o := range p.Ops {
		if o.DurationS >= longOp {
			out = append(out, o.Op)
		}
	}
	return out
}

// perPhase draws a phase of many operations: the rates chart; the total
// per second of the operations that lasted, in ops/s and (for those that
// move bytes) MiB/s; their p99 per second; and names each operation's
// slowest hosts.
func (tc *timeChartSet) perPhase() {
	tc.rates()
	long := longOps(tc.p)
	var mib, ops, p99 []chartLine
	var noLat []string
	for _, op := range long {
		os, ok := findSeconds(tc.all, op)
		if !ok {
			continue
		}
		if !os.Latency {
			noLat = append(noLat, op)
		}
		ml, ol := rateLines(op, os, tc.ax)
		ml.Color, ol.Color = OpColor(op), OpColor(op)
		ops = append(ops, ol)
		if tc.moves[op] {
			mib = append(mib, ml)
		}
		if os.Latency {
			l := chartLine{Name: op, Gap: tc.ax.gap(), Color: OpColor(op)}
			for _, s := range os.Seconds {
				if s.LatN > 0 {
					l.X, l.Y = append(l.X, tc.ax.x(s)), append(l.Y, float64(s.Bins.Percentile(99)))
					l.N = append(l.N, float64(s.LatN))
				}
			}
			p99 = append(p99, l)
		}
	}
	total := "all hosts"
	if n := len(tc.pd.Hosts); n > 1 {
		total = fmt.Sprintf("total of %d hosts", n)
	}
	if len(mib) > 0 {
		tc.charts = append(tc.charts, tc.chart(chartSpec{Title: fmt.Sprintf("Throughput per operation, %s (MiB/s)", total), XLabel: xLabel, YLabel: "MiB/s",
			Lines: mib, XTick: secondsTick, YTick: compact, LogY: wideRates(tc.p, true)}))
	}
	if len(ops) > 0 {
		tc.charts = append(tc.charts, tc.chart(chartSpec{Title: fmt.Sprintf("Operations per second per operation, %s", total), XLabel: xLabel, YLabel: "ops/s",
			Lines: ops, XTick: secondsTick, YTick: compact, LogY: wideRates(tc.p, false)}))
	}
	if len(p99) > 0 {
		tc.charts = append(tc.charts, tc.chart(chartSpec{Title: fmt.Sprintf("Latency %s: p99 per operation (all hosts)", tc.ax.per()), XLabel: xLabel, YLabel: "latency",
			Lines: p99, LogY: true, XTick: secondsTick, YTick: latencyTick}))
	}
	if len(noLat) > 0 {
		tc.notes = append(tc.notes, fmt.Sprintf("Latency per second: not recorded for %s (%s)", strings.Join(noLat, ", "), analyze.NoLatSecondsReason))
	}
	if short := len(tc.p.Ops) - len(long); short > 0 {
		tc.notes = append(tc.notes, fmt.Sprintf("Over time: %d of %d operations lasted under %d s and are drawn only in the rates chart", short, len(tc.p.Ops), longOp))
	}
	for _, o := range tc.p.Ops {
		tc.slowest(o.Op)
	}
}

// rates draws every operation's rate: per operation, the median host's
// and the range of the hosts' (mdtest's SUMMARY as a picture), in ops/s.
func (tc *timeChartSet) rates() {
	var lines []chartLine
	for i, o := range tc.p.Ops {
		var vs []float64
		for _, h := range tc.p.PerHost {
			for _, ho := range h.Ops {
				if ho.Op == o.Op && ho.OpsPerS != nil {
					vs = append(vs, *ho.OpsPerS)
				}
			}
		}
		if len(vs) == 0 && o.OpsPerS != nil {
			vs = []float64{*o.OpsPerS}
		}
		if len(vs) == 0 {
			continue
		}
		sort.Float64s(vs)
		x := float64(i + 1)
		l := chartLine{Name: o.Op, X: []float64{x}, Y: []float64{median(vs)}, Color: OpColor(o.Op), Gap: 0.5}
		if len(vs) > 1 {
			l.Lo, l.Hi = []float64{vs[0]}, []float64{vs[len(vs)-1]}
		}
		lines = append(lines, l)
	}
	if len(lines) == 0 {
		return
	}
	title := "Rate per operation (ops/s)"
	if n := len(tc.p.PerHost); n > 1 {
		title = fmt.Sprintf("Rate per operation: median host, min-max of %d hosts (ops/s)", n)
	}
	var ticks []float64
	for i := range tc.p.Ops {
		ticks = append(ticks, float64(i+1))
	}
	xl := "operation (legend)"
	if tc.stages {
		xl = "operation, in the order run (legend)"
	}
	// Half an operation's room each side: the first and last operations'
	// points sat on the axes' edges.
	tc.charts = append(tc.charts, svgChart(chartSpec{Title: title, XLabel: xl, YLabel: "ops/s", Lines: lines, XSpan: [2]float64{0.5, float64(len(tc.p.Ops)) + 0.5},
		XTicks: ticks, XTick: func(v float64) string { return fmt.Sprint(int(math.Round(v))) }, YTick: compact, LogY: wideRates(tc.p, false),
		Limits: limitsOn(tc.p, isFigure(figures.Rate), 1)}))
}

// slowest names op's host of lowest rate and marks it in the table,
// where there are hosts to be slower than.
func (tc *timeChartSet) slowest(op string) {
	fig := func(s results.OpSummary) (float64, bool) { return deref(s.OpsPerS) }
	show := func(s results.OpSummary) string { return rateText(s.OpsPerS, "ops/s") }
	if tc.moves[op] {
		fig = func(s results.OpSummary) (float64, bool) { return deref(s.BwBytesPerS) }
		show = func(s results.OpSummary) string { return bwText(s.BwBytesPerS) }
	}
	rank := hostRank(tc.p, op, fig, false)
	if len(rank) > 0 {
		tc.notes = append(tc.notes, fmt.Sprintf("%s: lowest throughput: %s", op, rankText(tc.p, op, rank, show)))
		for _, h := range rank {
			tc.slow[h+"\x00"+op] = true
		}
	}
}
