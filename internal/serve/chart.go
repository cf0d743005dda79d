package serve

import (
	"html/template"
	"math"
	"strconv"
	"time"

	"github.com/storbench/storbench/internal/catalog"
	"github.com/storbench/storbench/internal/report"
	"github.com/storbench/storbench/internal/units"
)

// scale is a display unit of a figure: values are divided by div.
type scale struct {
	div  float64
	unit string
}

// scaleFor picks the unit in which the largest value reads best: a
// bandwidth in binary units as the reports print it, a rate in ops/s,
// kops/s or Mops/s, a latency in ns, µs, ms or s.
func scaleFor(figure string, top float64) scale {
	var steps []scale
	switch catalog.Unit(figure) {
	case "B/s":
		steps = []scale{{1, "B/s"}, {1 << 10, "KiB/s"}, {1 << 20, "MiB/s"}, {1 << 30, "GiB/s"}, {1 << 40, "TiB/s"}}
	case "ops/s":
		steps = []scale{{1, "ops/s"}, {1e3, "kops/s"}, {1e6, "Mops/s"}}
	case "ns":
		steps = []scale{{1, "ns"}, {1e3, "µs"}, {1e6, "ms"}, {1e9, "s"}}
	default:
		return scale{1, "count"}
	}
	out := steps[0]
	for _, s := range steps {
		if math.Abs(top) >= s.div {
			out = s
		}
	}
	return out
}

// trendChart draws a figure over time: x the runs' start (UTC), one line
// per group of the --by label, the figure in the unit its largest value
// reads best in.
func trendChart(f catalog.FigureRef, by string, pts []catalog.Point) template.HTML {
	t0, t1 := pts[0].StartedAt, pts[0].StartedAt
	top := 0.0
	for _, p := range pts {
		if p.StartedAt.Before(t0) {
			t0 = p.StartedAt
		}
		if p.StartedAt.After(t1) {
			t1 = p.StartedAt
		}
		top = math.Max(top, math.Abs(p.Value))
	}
	sc := scaleFor(f.Name, top)
	var series []report.Series
	at := map[string]int{}
	for _, p := range pts {
		name := "all runs"
		if by != "" {
			name = by + "=" + p.Group
			if p.Group == "" {
				name = by + " not set"
			}
		}
		i, ok := at[name]
		if !ok {
			i = len(series)
			at[name] = i
			series = append(series, report.Series{Name: name})
			if by == "" {
				// One line of one operation: its colour in the reports.
				series[i].Color = report.OpColor(f.Op)
			}
		}
		series[i].X = append(series[i].X, p.StartedAt.Sub(t0).Seconds())
		series[i].Y = append(series[i].Y, p.Value/sc.div)
	}
	c := report.Chart{
		Title:  f.String() + " over time",
		YLabel: f.Name + " (" + sc.unit + ")",
		Series: series,
		YTick:  func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) },
	}
	timeAxis(&c, t0, t1)
	return report.SVGChart(c)
}

// timeSteps are the steps of a time axis a person would pick.
var timeSteps = []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour}

// timeAxis gives c an x axis of the runs' start times, x being seconds
// after t0: over two days and more, whole days labelled with the date;
// under, the clock (UTC) at round steps (every 5 minutes, every hour...).
// A single run sits in the middle of an hour, not on the axis's edge.
func timeAxis(c *report.Chart, t0, t1 time.Time) {
	span := t1.Sub(t0)
	at := func(x float64) time.Time { return t0.Add(time.Duration(x * float64(time.Second))).UTC() }
	if span >= 48*time.Hour {
		for _, d := range report.NiceTicks(0, span.Hours()/24, 6) {
			c.XTicks = append(c.XTicks, d*86400)
		}
		c.XTick = func(x float64) string { return at(x).Format("Jan 2") }
		c.XLabel = "run start (date, UTC, from " + t0.UTC().Format("2006-01-02") + ")"
		return
	}
	from, to := t0, t1
	if span == 0 {
		from, to = t0.Add(-30*time.Minute), t0.Add(30*time.Minute)
		c.XSpan = [2]float64{-1800, 1800}
	}
	step := timeSteps[len(timeSteps)-1]
	for _, s := range timeSteps {
		if to.Sub(from) <= 6*s {
			step = s
			break
		}
	}
	for tk := from.UTC().Truncate(step); !tk.After(to); tk = tk.Add(step) {
		if !tk.Before(from) {
			c.XTicks = append(c.XTicks, tk.Sub(t0).Seconds())
		}
	}
	layout := "15:04"
	if step < time.Minute {
		layout = "15:04:05"
	}
	c.XTick = func(x float64) string { return at(x).Format(layout) }
	day := t0.UTC().Format("2006-01-02")
	if d1 := t1.UTC().Format("2006-01-02"); d1 != day {
		day += " to " + d1
	}
	c.XLabel = "run start (time, UTC, " + day + ")"
}

// byUnit prints a value of a unit (B/s, ops/s, ns) as the CLI does.
func byUnit(unit string, v float64) string {
	switch unit {
	case "ops/s":
		return units.Rate(v, "ops/s")
	case "B/s":
		return units.Bandwidth(v)
	case "ns":
		return units.Latency(v)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

func whenText(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04")
}
