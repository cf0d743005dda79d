package report

import (
	"fmt"
	"html/template"
	"slices"

	"github.com/storbench/storbench/internal/analyze"
	"github.com/storbench/storbench/internal/cpuload"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
)

// maxClientLines is how many hosts a client chart draws a line for each;
// more are drawn as their median and their busiest.
const maxClientLines = 8

// ClientLimitsNote says which hosts reached a limit of their own during
// the phase, or that none did (when the hosts sampled themselves): the
// words the report puts beside the phase's figures, "" when the phase
// was not sampled or its only limits are starved hosts (StarvedText says
// those).
func ClientLimitsNote(p *results.PhaseSummary) string {
	lines := p.ClientLimitLines()
	switch {
	case len(lines) == 0 && len(p.ClientStarved) > 0:
		return ""
	case len(lines) > 0:
		s := "Client limits (whose limit the figure may be): "
		for i, l := range lines {
			if i > 0 {
				s += "; "
			}
			s += l
		}
		return s
	case p.Sampled():
		return fmt.Sprintf("Client limits: none reached on any host (CPU %.0f%% of what it could use, link %.0f%%, disk busy %.0f%%, in half the phase's seconds; not starved): the figure is the storage's",
			cpuload.SaturatedCPUPct, cpuload.LinkPct, cpuload.DiskBusyPct)
	}
	return ""
}

// clientSeries is one line of a client chart: a host's (or a device's)
// figure at each sample.
type clientSeries struct {
	name string
	x, y []float64
}

// clientCharts draws the hosts' own figures over the phase's seconds,
// beside its rates: the CPU each could use that was busy, each network
// link's share in use, each disk's busy time, with the phase's events
// marked as on its other charts over time. Nothing when no host sampled
// itself.
func clientCharts(pd analyze.PhaseData, ax timeAxis) []template.HTML {
	var cpu, link, disk []clientSeries
	several := len(pd.Hosts) > 1
	for _, h := range pd.Hosts {
		if h == nil || h.Client == nil || h.Client.Samples == nil {
			continue
		}
		s := h.Client.Samples
		all := sampleX(s, ax)
		lo, hi := ax.within(all)
		x := all[lo:hi]
		if len(x) == 0 {
			continue
		}
		if len(s.UsedPct) == len(all) {
			cpu = append(cpu, clientSeries{h.Host, x, s.UsedPct[lo:hi]})
		}
		for _, n := range s.Net {
			if n.LinkBytesPerS == nil || len(n.RxBytesPerS) != len(all) || len(n.TxBytesPerS) != len(all) {
				continue
			}
			y := make([]float64, len(x))
			for i := range y {
				y[i] = 100 * max(n.RxBytesPerS[lo+i], n.TxBytesPerS[lo+i]) / *n.LinkBytesPerS
			}
			link = append(link, clientSeries{hostDevice(h.Host, n.Name, several), x, y})
		}
		for _, d := range s.Disks {
			if len(d.BusyPct) == len(all) {
				disk = append(disk, clientSeries{hostDevice(h.Host, d.Name, several), x, d.BusyPct[lo:hi]})
			}
		}
	}
	var out []template.HTML
	for _, c := range []struct {
		title  string
		series []clientSeries
		limit  float64
	}{
		{"Client CPU used per host (% of the cores or quota it could use)", cpu, cpuload.SaturatedCPUPct},
		{"Client network per link (% of its speed, busier way)", link, cpuload.LinkPct},
		{"Client disk busy per device (%)", disk, cpuload.DiskBusyPct},
	} {
		if len(c.series) == 0 {
			continue
		}
		lines := clientLines(c.series)
		top := 0.0
		for _, l := range lines {
			top = max(top, slices.Max(l.Y))
		}
		out = append(out, svgChart(chartSpec{Title: c.title, XLabel: xLabel, YLabel: "%", Lines: lines,
			XTick: secondsTick, YTick: compact, YTop: 100, XSpan: ax.span(), Marks: eventMarks(pd.Summary.Events, ax.t0),
			Limits: []chartLimit{{Y: c.limit, Label: fmt.Sprintf("limit %.0f%%", c.limit), Crossed: top >= c.limit}}}))
	}
	return out
}

func hostDevice(host, dev string, several bool) string {
	if several {
		return host + " " + dev
	}
	return dev
}

// within is the range [lo, hi) of x (ascending, seconds) that falls in
// the phase's time axis: a host samples itself from before its load
// starts to after its tool exits, and its charts share the axis of the
// phase's other charts (an event's band at the same seconds in each).
func (a timeAxis) within(x []float64) (lo, hi int) {
	last := a.end + a.seg.Seconds() - 0.5
	for lo < len(x) && x[lo] < -0.5 {
		lo++
	}
	hi = lo
	for hi < len(x) && x[hi] <= last {
		hi++
	}
	return lo, hi
}

// sampleX places each sample at the start of the second it covers, on
// the phase's time axis.
func sampleX(s *model.HostSamples, ax timeAxis) []float64 {
	off := float64(s.StartNs-ax.t0) / 1e9
	x := make([]float64, len(s.TS))
	prev := 0.0
	for i, t := range s.TS {
		x[i], prev = off+prev, t
	}
	return x
}

// clientLines is a line per series, or for many the median and the
// highest at each sample (the series of one chart sample alike: by
// index).
func clientLines(series []clientSeries) []chartLine {
	if len(series) <= maxClientLines {
		var out []chartLine
		for _, s := range series {
			out = append(out, chartLine{Name: s.name, X: s.x, Y: s.y, Gap: 1.5})
		}
		return out
	}
	n := len(series[0].x)
	for _, s := range series {
		n = min(n, len(s.x))
	}
	med := chartLine{Name: fmt.Sprintf("median of %d", len(series)), X: series[0].x[:n], Gap: 1.5}
	top := chartLine{Name: "highest", X: series[0].x[:n], Gap: 1.5}
	v := make([]float64, len(series))
	for i := range n {
		for k, s := range series {
			v[k] = s.y[i]
		}
		slices.Sort(v)
		med.Y, top.Y = append(med.Y, v[(len(v)-1)/2]), append(top.Y, v[len(v)-1])
	}
	return []chartLine{med, top}
}
