package report

import (
	"cmp"
	"fmt"
	"html/template"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/analyze"
	"github.com/storbench/storbench/internal/figures"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/safetext"
	"github.com/storbench/storbench/internal/units"
)

// manyHosts is the most hosts a per-second chart draws one line each for;
// past it, charts show the total and the spread across hosts (median,
// min-max band) and name the slowest hosts.
const manyHosts = 6

// slowestShown is how many of the slowest hosts a spread chart draws and
// names.
const slowestShown = 3

// maxPoints is the most points a line over time gets: a longer phase is
// drawn in segments of several seconds (histograms merged per segment).
const maxPoints = 600

// htmlHostRow is one host's figures for one operation, in the per-host
// table.
type htmlHostRow struct {
	Host, Op, Throughput, OpsPerS, Mean, P50, P99, P999, Errors string
	Slow                                                        bool
}

// timeAxis is a phase's time axis: its start, and the segment length that
// keeps lines under maxPoints points.
type timeAxis struct {
	t0  int64
	seg time.Duration
	// end is the phase's last second with a value, in x (seconds): every
	// chart over time spans 0 to end (chartSpec.XSpan).
	end float64
}

// span is the x range every chart of the phase over time covers.
func (a timeAxis) span() [2]float64 { return [2]float64{0, a.end} }

func (a timeAxis) x(s analyze.OpSecond) float64 { return float64(s.StartNs-a.t0) / 1e9 }

// gap is the distance in x (seconds) past which a line over time breaks:
// more than a segment without a value (an md operation between its
// iterations, latency in a second in which nothing ended).
func (a timeAxis) gap() float64 { return 1.5 * a.seg.Seconds() }

// per is "per second", or "per 6 s" for longer segments.
func (a timeAxis) per() string {
	if a.seg <= time.Second {
		return "per second"
	}
	return "per " + seconds(a.seg.Seconds())
}

func phaseAxis(hosts []*model.HostResult) timeAxis {
	t0 := analyze.PhaseStart(hosts)
	end := t0
	for _, h := range hosts {
		for _, s := range h.Series {
			end = max(end, s.EndNs)
		}
	}
	secs := int64(math.Ceil(float64(end-t0) / 1e9))
	seg := max(1, (secs+maxPoints-1)/maxPoints)
	ax := timeAxis{t0: t0, seg: time.Duration(seg) * time.Second}
	// The start of the last segment: where the lines' last points are.
	ax.end = float64((secs - 1) / seg * seg)
	if secs == 0 {
		ax.end = 0
	}
	return ax
}

// opMoves says which operations move bytes, from the phase's summary.
func opMoves(p results.PhaseSummary) map[string]bool {
	m := map[string]bool{}
	for _, o := range p.Ops {
		m[o.Op] = o.Bytes > 0
	}
	return m
}

// oneAfterAnother says every host ran its operations one after another,
// as stages (md's create, stat, read, remove), not side by side (an s3
// mixed phase): each began no earlier than the one before it ended, give
// or take a millisecond.
func oneAfterAnother(hosts []*model.HostResult) bool {
	if len(hosts) == 0 {
		return false
	}
	for _, h := range hosts {
		ops := slices.Clone(h.Ops)
		slices.SortFunc(ops, func(a, b record.OpStats) int { return cmp.Compare(a.StartNs, b.StartNs) })
		for i := 1; i < len(ops); i++ {
			if ops[i].StartNs < ops[i-1].EndNs-int64(time.Millisecond) {
				return false
			}
		}
	}
	return true
}

// timeCharts draws a phase's throughput and latency over time: with a
// handful of hosts, a line per host; with more, the total, and per
// operation the spread across hosts with the slowest named. Latency per
// second comes from the hosts' histograms of each second, merged. It also
// returns notes (the slowest hosts, latency not recorded) and every host's
// figures for the per-host table.
func timeCharts(pd analyze.PhaseData) (charts []template.HTML, notes []string, table []htmlHostRow) {
	tc := &timeChartSet{pd: pd, p: pd.Summary, ax: phaseAxis(pd.Hosts), slow: map[string]bool{}}
	tc.marks = eventMarks(tc.p.Events, tc.ax.t0)
	var err error
	tc.all, err = plainSeconds(analyze.SecondsOf(pd.Hosts, tc.ax.t0, tc.ax.seg, nil))
	if err != nil {
		tc.notes = append(tc.notes, "per-second figures unreadable: "+safetext.Escape(err.Error()))
	}
	tc.perHost = make([][]analyze.OpSeconds, len(pd.Hosts))
	for i, h := range pd.Hosts {
		if tc.perHost[i], err = plainSeconds(analyze.SecondsOf([]*model.HostResult{h}, tc.ax.t0, tc.ax.seg, nil)); err != nil {
			tc.notes = append(tc.notes, "per-second figures unreadable: "+safetext.Escape(err.Error()))
		}
	}
	tc.moves = opMoves(tc.p)
	// Many operations read at a glance drawn per phase, whether run one
	// after another (md's stages) or side by side (s3 mixed's four,
	// which drew 15 charts per operation).
	if len(tc.p.Ops) > manyOps {
		tc.stages = oneAfterAnother(pd.Hosts)
		tc.perPhase()
		return tc.charts, tc.notes, tc.hostTable()
	}
	// Many hosts, or more lines (hosts x operations) than the palette has
	// colours (md: 6 operations on 3 hosts), are drawn as the total per
	// operation and each operation's spread across hosts.
	tc.many = len(pd.Hosts) > manyHosts || len(pd.Hosts) > 1 && len(pd.Hosts)*len(tc.p.Ops) > len(palette)
	tc.throughput()

	// Per operation: its spread across hosts, and its latency over time.
	var noLat []string
	for _, o := range tc.p.Ops {
		os, ok := findSeconds(tc.all, o.Op)
		if !ok {
			continue
		}
		if tc.many {
			tc.rateSpread(o.Op)
		}
		if !os.Latency {
			noLat = append(noLat, o.Op)
			continue
		}
		tc.latency(o.Op, os)
		if tc.many {
			tc.latencySpread(o.Op)
		}
	}
	if len(noLat) > 0 || len(tc.all) == 0 {
		what := strings.Join(noLat, ", ")
		if what == "" {
			what = "any operation"
		}
		tc.notes = append(tc.notes, fmt.Sprintf("Latency per second: not recorded for %s (%s)", what, analyze.NoLatSecondsReason))
	}
	return tc.charts, tc.notes, tc.hostTable()
}

// timeChartSet is a phase's charts over time as timeCharts draws them.
type timeChartSet struct {
	pd      analyze.PhaseData
	p       results.PhaseSummary
	ax      timeAxis
	all     []analyze.OpSeconds   // all hosts'
	perHost [][]analyze.OpSeconds // each host's
	moves   map[string]bool
	many    bool
	slow    map[string]bool // host+"\x00"+op, marked in the table
	charts  []template.HTML
	notes   []string
	marks   []chartMark // the phase's events, drawn on every chart
	// stages says the operations ran one after another (oneAfterAnother).
	stages bool
}

// chart draws c with the phase's events marked on it.
func (tc *timeChartSet) chart(c chartSpec) template.HTML {
	c.Marks, c.XSpan = tc.marks, tc.ax.span()
	return svgChart(c)
}

// xLabel is the x axis of every chart over time.
const xLabel = "seconds into the phase"

// throughput draws a line per host and operation, or the hosts' total:
// MiB/s (of operations that move bytes) and operations per second.
func (tc *timeChartSet) throughput() {
	p, ax := tc.p, tc.ax
	var mib, ops []chartLine
	for _, o := range p.Ops {
		if tc.many {
			os, ok := findSeconds(tc.all, o.Op)
			if !ok {
				continue
			}
			ml, ol := rateLines(o.Op+" total", os, ax)
			ml.Color, ol.Color = OpColor(o.Op), OpColor(o.Op)
			ops = append(ops, ol)
			if tc.moves[o.Op] {
				mib = append(mib, ml)
			}
			continue
		}
		for i, h := range tc.pd.Hosts {
			if os, ok := findSeconds(tc.perHost[i], o.Op); ok {
				ml, ol := rateLines(o.Op+" "+h.Host, os, ax)
				if len(tc.pd.Hosts) == 1 {
					// One line per operation: the operation's colour.
					ml.Color, ol.Color = OpColor(o.Op), OpColor(o.Op)
				}
				ops = append(ops, ol)
				if tc.moves[o.Op] {
					mib = append(mib, ml)
				}
			}
		}
	}
	mibTitle, opsTitle := "Throughput per host (MiB/s)", "Operations per second per host"
	if tc.many {
		mibTitle = fmt.Sprintf("Throughput, total of %d hosts (MiB/s)", len(tc.pd.Hosts))
		opsTitle = fmt.Sprintf("Operations per second, total of %d hosts", len(tc.pd.Hosts))
	}
	if len(mib) > 0 {
		tc.charts = append(tc.charts, tc.chart(chartSpec{Title: mibTitle, XLabel: xLabel, YLabel: "MiB/s", Lines: mib, XTick: secondsTick, YTick: compact, LogY: wideRates(p, true),
			Limits: limitsOn(p, isFigure(figures.BW), 1<<20)}))
	}
	tc.charts = append(tc.charts, tc.chart(chartSpec{Title: opsTitle, XLabel: xLabel, YLabel: "ops/s", Lines: ops, XTick: secondsTick, YTick: compact, LogY: wideRates(p, false),
		Limits: limitsOn(p, isFigure(figures.Rate), 1)}))
}

// rateSpread draws op's throughput spread across hosts (MiB/s when it
// moves bytes, else ops/s) and names the slowest hosts.
func (tc *timeChartSet) rateSpread(op string) {
	p := tc.p
	unit, val := "ops/s", func(s analyze.OpSecond) float64 { return s.OpsPerS }
	fig := func(s results.OpSummary) (float64, bool) { return deref(s.OpsPerS) }
	show := func(s results.OpSummary) string { return rateText(s.OpsPerS, "ops/s") }
	if tc.moves[op] {
		unit, val = "MiB/s", func(s analyze.OpSecond) float64 { return s.BytesPerS / (1 << 20) }
		fig = func(s results.OpSummary) (float64, bool) { return deref(s.BwBytesPerS) }
		show = func(s results.OpSummary) string { return bwText(s.BwBytesPerS) }
	}
	rank := hostRank(p, op, fig, false)
	if lines := spreadLines(tc.pd.Hosts, tc.perHost, op, tc.ax, val, false, rank); lines != nil {
		tc.charts = append(tc.charts, tc.chart(chartSpec{Title: fmt.Sprintf("%s: %s per host, median and min-max of %d hosts", op, unit, len(tc.pd.Hosts)),
			XLabel: xLabel, YLabel: unit, Lines: lines, XTick: secondsTick, YTick: compact}))
	}
	if len(rank) > 0 {
		tc.notes = append(tc.notes, fmt.Sprintf("%s: lowest throughput: %s", op, rankText(p, op, rank, show)))
		for _, h := range rank {
			tc.slow[h+"\x00"+op] = true
		}
	}
}

// latency draws op's p50, p99 and p99.9 over time, from the hosts'
// histograms of each second merged.
func (tc *timeChartSet) latency(op string, os analyze.OpSeconds) {
	ax := tc.ax
	var lines []chartLine
	for _, q := range []struct {
		name string
		pct  float64
	}{{"p50", 50}, {"p99", 99}, {"p99.9", 99.9}} {
		l := chartLine{Name: q.name, Gap: ax.gap()}
		for _, s := range os.Seconds {
			if s.LatN > 0 {
				l.X, l.Y = append(l.X, ax.x(s)), append(l.Y, float64(s.Bins.Percentile(q.pct)))
				l.N = append(l.N, float64(s.LatN))
			}
		}
		lines = append(lines, l)
	}
	who := "all hosts"
	if len(tc.pd.Hosts) == 1 {
		who = tc.pd.Hosts[0].Host
	}
	tc.charts = append(tc.charts, tc.chart(chartSpec{Title: fmt.Sprintf("Latency %s: %s (%s)", ax.per(), op, who), XLabel: xLabel, YLabel: "latency",
		Lines: lines, LogY: true, XTick: secondsTick, YTick: latencyTick}))
}

// latencyTick formats a latency axis value.
func latencyTick(v float64) string { return units.Latency(v) }

// latencySpread draws op's p99 spread across hosts and names the hosts
// of highest p99.
func (tc *timeChartSet) latencySpread(op string) {
	p := tc.p
	rank := hostRank(p, op, func(s results.OpSummary) (float64, bool) {
		if s.Lat == nil {
			return 0, false
		}
		return float64(s.Lat.P99Ns), true
	}, true)
	p99 := func(s analyze.OpSecond) float64 {
		if s.LatN == 0 {
			return math.NaN()
		}
		return float64(s.Bins.Percentile(99))
	}
	if lines := spreadLines(tc.pd.Hosts, tc.perHost, op, tc.ax, p99, true, rank); lines != nil {
		tc.charts = append(tc.charts, tc.chart(chartSpec{Title: fmt.Sprintf("%s: p99 %s per host, median and min-max of %d hosts", op, tc.ax.per(), len(tc.pd.Hosts)),
			XLabel: xLabel, YLabel: "latency", Lines: lines, LogY: true, XTick: secondsTick, YTick: latencyTick}))
	}
	if len(rank) > 0 {
		tc.notes = append(tc.notes, fmt.Sprintf("%s: highest p99: %s", op, rankText(p, op, rank, func(s results.OpSummary) string { return latText(s.Lat, latP99) })))
		for _, h := range rank {
			tc.slow[h+"\x00"+op] = true
		}
	}
}

// hostTable is every host's figures, the slowest marked, for a phase of
// several hosts.
func (tc *timeChartSet) hostTable() []htmlHostRow {
	var table []htmlHostRow
	if len(tc.p.PerHost) > 1 {
		for _, h := range tc.p.PerHost {
			for _, o := range h.Ops {
				table = append(table, htmlHostRow{Host: h.Host, Op: o.Op, Throughput: bwText(o.BwBytesPerS), OpsPerS: rateText(o.OpsPerS, ""),
					Mean: latText(o.Lat, latMean), P50: latText(o.Lat, latP50), P99: latText(o.Lat, latP99), P999: latText(o.Lat, latP999),
					Errors: fmt.Sprint(o.Errors), Slow: tc.slow[h.Host+"\x00"+o.Op]})
			}
		}
	}
	return table
}

// wideRates says a phase's operations run at rates too far apart for one
// linear axis (md: stat at a million a second, tree-remove at a hundred):
// more than 100x between the fastest and the slowest. bytes looks at
// bandwidth, else at operations per second.
func wideRates(p results.PhaseSummary, bytes bool) bool {
	lo, hi := math.Inf(1), 0.0
	for _, o := range p.Ops {
		v := o.OpsPerS
		if bytes {
			v = o.BwBytesPerS
		}
		if v != nil && *v > 0 {
			lo, hi = min(lo, *v), max(hi, *v)
		}
	}
	return hi > 100*lo
}

// rateLines are an operation's MiB/s and ops/s over time.
func rateLines(name string, os analyze.OpSeconds, ax timeAxis) (mib, ops chartLine) {
	mib, ops = chartLine{Name: name, Gap: ax.gap()}, chartLine{Name: name, Gap: ax.gap()}
	for _, s := range os.Seconds {
		ops.X, ops.Y = append(ops.X, ax.x(s)), append(ops.Y, s.OpsPerS)
		mib.X, mib.Y = append(mib.X, ax.x(s)), append(mib.Y, s.BytesPerS/(1<<20))
		ops.S, mib.S = append(ops.S, s.Seconds), append(mib.S, s.Seconds)
	}
	return mib, ops
}

func findSeconds(list []analyze.OpSeconds, op string) (analyze.OpSeconds, bool) {
	for _, o := range list {
		if o.Op == op {
			return o, true
		}
	}
	return analyze.OpSeconds{}, false
}

func deref(p *float64) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return *p, true
}

// hostRank names the slowest hosts of an operation by a figure of the
// phase: the lowest (or, with high, the highest) first.
func hostRank(p results.PhaseSummary, op string, fig func(results.OpSummary) (float64, bool), high bool) []string {
	type hv struct {
		host string
		v    float64
	}
	var all []hv
	for _, h := range p.PerHost {
		for _, o := range h.Ops {
			if o.Op == op {
				if v, ok := fig(o); ok {
					all = append(all, hv{h.Host, v})
				}
			}
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		if high {
			return all[i].v > all[j].v
		}
		return all[i].v < all[j].v
	})
	// A handful of hosts: the slower half at most (naming all three of
	// three hosts as the slowest says nothing), and none where only one
	// host has the figure (md's tree-create, made by one host): there is
	// nothing for it to be slower than.
	var out []string
	if len(all) < 2 {
		return nil
	}
	for i := 0; i < len(all) && i < min(slowestShown, max(1, len(all)/2)); i++ {
		out = append(out, all[i].host)
	}
	return out
}

func rankText(p results.PhaseSummary, op string, hosts []string, fig func(results.OpSummary) string) string {
	var parts []string
	for _, name := range hosts {
		for _, h := range p.PerHost {
			if h.Host != name {
				continue
			}
			for _, o := range h.Ops {
				if o.Op == op {
					parts = append(parts, fmt.Sprintf("%s (%s)", name, fig(o)))
				}
			}
		}
	}
	return strings.Join(parts, ", ")
}

// spreadLines draws one operation across many hosts: per segment the
// min-max band and the median of the hosts' values, and the named slowest
// hosts' own lines. val is NaN where a host has no value; latency says
// it is a latency (each point of a host's line carries its requests), else
// a rate (the time it is over).
func spreadLines(hosts []*model.HostResult, perHost [][]analyze.OpSeconds, op string, ax timeAxis, val func(analyze.OpSecond) float64, latency bool, slowest []string) []chartLine {
	byX := map[int]*[]float64{}
	var xs []int
	own := map[string]chartLine{}
	isSlow := map[string]bool{}
	for _, h := range slowest {
		isSlow[h] = true
	}
	for i, h := range hosts {
		os, ok := findSeconds(perHost[i], op)
		if !ok {
			continue
		}
		l := chartLine{Name: "slow: " + h.Host, Thin: true, Gap: ax.gap()}
		for _, s := range os.Seconds {
			v := val(s)
			if math.IsNaN(v) {
				continue
			}
			vs := byX[s.Index]
			if vs == nil {
				vs = &[]float64{}
				byX[s.Index] = vs
				xs = append(xs, s.Index)
			}
			*vs = append(*vs, v)
			l.X, l.Y = append(l.X, ax.x(s)), append(l.Y, v)
			if latency {
				l.N = append(l.N, float64(s.LatN))
			} else {
				l.S = append(l.S, s.Seconds)
			}
		}
		if isSlow[h.Host] {
			own[h.Host] = l
		}
	}
	if len(xs) == 0 {
		return nil
	}
	sort.Ints(xs)
	band := chartLine{Name: fmt.Sprintf("min-max of %d hosts", len(hosts)), Band: true, Color: "#1f77b4", Gap: ax.gap()}
	med := chartLine{Name: "median host", Color: "#1f77b4", Gap: ax.gap()}
	for _, i := range xs {
		vs := *byX[i]
		sort.Float64s(vs)
		x := ax.x(analyze.OpSecond{StartNs: ax.t0 + int64(i)*int64(ax.seg)})
		band.X, band.Lo, band.Hi = append(band.X, x), append(band.Lo, vs[0]), append(band.Hi, vs[len(vs)-1])
		med.X, med.Y = append(med.X, x), append(med.Y, median(vs))
	}
	lines := []chartLine{band, med}
	colors := []string{"#d62728", "#ff7f0e", "#9467bd"}
	for k, h := range slowest {
		if l, ok := own[h]; ok {
			l.Color = colors[k%len(colors)]
			lines = append(lines, l)
		}
	}
	return lines
}

// median of sorted values: the middle one, or the mean of the two.
func median(vs []float64) float64 {
	n := len(vs)
	if n%2 == 1 {
		return vs[n/2]
	}
	return (vs[n/2-1] + vs[n/2]) / 2
}
