package report

import (
	"html/template"

	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/units"
)

// sweepCharts draws, for every suite group and operation with a matrix, its
// headline metric against a swept parameter (the last numeric one, else the
// last), one line per combination of the other parameters, with the
// confidence interval of each point's mean (at the run's --confidence) as an
// error bar where the point ran more than once.
func sweepCharts(sws []results.Sweep) []template.HTML {
	type gk struct{ group, op string }
	var order []gk
	byGroup := map[gk][]results.Sweep{}
	for _, sw := range sws {
		if len(sw.Point) == 0 {
			continue
		}
		k := gk{sw.Group, sw.Op}
		if _, ok := byGroup[k]; !ok {
			order = append(order, k)
		}
		byGroup[k] = append(byGroup[k], sw)
	}
	var out []template.HTML
	for _, k := range order {
		group := byGroup[k]
		xKey := xAxisKey(group)
		xs := results.SortedPointValues(group, xKey)
		xIndex := map[string]float64{}
		ticks := make([]float64, len(xs))
		for i, v := range xs {
			xIndex[v] = float64(i)
			ticks[i] = float64(i)
		}
		var lines []chartLine
		lineIndex := map[string]int{}
		for _, sw := range group {
			st, ok := sw.Metrics[sw.Headline]
			if !ok {
				continue // not measured: no point
			}
			name := pointText(without(sw.Point, xKey))
			if name == "-" {
				name = sw.Op
			}
			i, ok := lineIndex[name]
			if !ok {
				i = len(lines)
				lineIndex[name] = i
				lines = append(lines, chartLine{Name: name})
			}
			l := &lines[i]
			l.X = append(l.X, xIndex[results.PointValue(sw.Point, xKey)])
			l.Y = append(l.Y, st.Mean)
			// Throughput and latency are never negative; a wide interval of
			// a few noisy iterations is cut at zero.
			l.Lo = append(l.Lo, max(st.CILow, 0))
			l.Hi = append(l.Hi, st.CIHigh)
		}
		metric := group[0].Headline
		out = append(out, svgChart(chartSpec{
			Title:  k.group + " " + k.op + ": " + metricName(group[0].TextFormats(), metric) + " by " + xKey,
			XLabel: xKey, YLabel: metricName(group[0].TextFormats(), metric), Lines: lines, XTicks: ticks,
			XTick: func(v float64) string {
				if i := int(v); i >= 0 && i < len(xs) && float64(i) == v {
					return xs[i]
				}
				return ""
			},
			YTick: func(v float64) string { return compactMetric(metric, v) },
		}))
	}
	return out
}

// compactMetric labels an axis tick of a headline metric.
func compactMetric(metric string, v float64) string {
	switch metric {
	case "bw_bytes_per_s":
		return compact(v/(1<<20)) + " MiB/s"
	case "lat_ns_mean", "lat_ns_p99":
		return compact(v/1e3) + " us"
	}
	return compact(v)
}

// xAxisKey picks the parameter a sweep chart runs along: the last matrix key
// whose values are all numbers or sizes and that takes two or more values,
// else the last key.
func xAxisKey(group []results.Sweep) string {
	keys := group[0].Point
	for i := len(keys) - 1; i >= 0; i-- {
		k := keys[i].Key
		vals := results.SortedPointValues(group, k)
		numeric := len(vals) > 1
		for _, v := range vals {
			if _, err := units.ParseSize(v); err != nil {
				numeric = false
			}
		}
		if numeric {
			return k
		}
	}
	return keys[len(keys)-1].Key
}

func without(p []results.KV, key string) []results.KV {
	var out []results.KV
	for _, kv := range p {
		if kv.Key != key {
			out = append(out, kv)
		}
	}
	return out
}
