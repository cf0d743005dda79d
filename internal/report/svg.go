package report

import (
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"
)

// chartLine is one line of a chart.
type chartLine struct {
	Name string
	X, Y []float64
	// Lo and Hi, when set, draw an error bar at each point; with Band, an
	// area from Lo to Hi (and no line: Y is not used).
	Lo, Hi []float64
	Band   bool
	// Thin draws a thin dashed line, for lines named beside a band.
	Thin bool
	// Gap, when set, breaks the line (and a band) between points further
	// apart in x than it: time in which the line had no value.
	Gap float64
	// Color, when set, replaces the palette's colour.
	Color string
	// S, when set, is the time in seconds each point's rate is over: its
	// value times S[k] is what the point stands for (a segment's
	// operations or bytes), so that a page can add a line up. N, when
	// set, is how many samples a point stands for (a second's latency:
	// its requests). Both are carried in the markers' data attributes.
	S, N []float64
}

// valid reports whether point k of the line can be drawn.
func (l chartLine) valid(k int, logY bool) bool {
	if l.Band {
		return k < len(l.Lo) && k < len(l.Hi) && (!logY || l.Lo[k] > 0)
	}
	return !logY || l.Y[k] > 0
}

// chartSpec describes a chart rendered to inline SVG.
type chartSpec struct {
	Title, XLabel, YLabel string
	Lines                 []chartLine
	LogY                  bool
	// Bars draws each point as a bar from zero instead of a line.
	Bars bool
	// XTick and YTick format axis values.
	XTick, YTick func(float64) string
	// XTicks, when set, are the x positions of the ticks.
	XTicks []float64
	// Marks are events drawn over time (x in the chart's units).
	Marks []chartMark
	// YTop, when above the data, is where a linear y axis ends.
	YTop float64
	// Limits are limits on the figure the chart shows, drawn as lines.
	Limits []chartLimit
}

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"}

const (
	plotW, plotH           float64 = 380, 192
	padL, padT, padB, padR float64 = 70, 28, 40, 12
	// legendChar is a generous width of one character of the legend's
	// 10 px font, so that names fit the box they are given.
	legendChar = 6.2
	legendRow  = 16
	maxLegend  = 48  // characters of a legend name before it is cut
	minLegend  = 140 // px: two charts side by side in a 1300 px window
)

// svgChart renders a chart with axes, ticks, a legend and one marker
// (class "pt") per data point, so the page can be checked for data. The
// legend gets the width its longest name needs and the chart grows to
// hold every entry: nothing is cut off.
func svgChart(c chartSpec) template.HTML {
	p := &plot{c: c, b: &strings.Builder{}}
	longest := p.bounds()
	b, n := p.b, p.n
	// One width for every legend that fits it, so that charts line up.
	legendW := math.Max(minLegend, 24+legendChar*float64(longest)+padR)
	chartW := padL + plotW + 10 + legendW
	p.ph = math.Max(plotH, float64(len(c.Lines))*legendRow+8)
	p.chartH = padT + p.ph + padB
	// data-zero is the y of the value 0 on a linear axis (-1 on a log one),
	// so a page can read values back from the markers.
	zero := -1.0
	if !c.LogY {
		zero = padT + p.ph
	}
	fmt.Fprintf(b, `<svg class="chart" data-points="%d" data-zero="%.1f" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %g %g" width="%g" height="%g" role="img" aria-label="%s"`,
		n, zero, chartW, p.chartH, chartW, p.chartH, template.HTMLEscapeString(c.Title))
	if n > 0 {
		p.scale()
		// The y axis: the pixels of its bottom and top and the values
		// there, so that a page can read a marker's value from its place.
		fmt.Fprintf(b, ` data-y-px="%g %g" data-y-range="%g %g" data-y-log="%t"`, padT+p.ph, padT, p.ymin, p.ymax, c.LogY)
	}
	b.WriteString(">")
	fmt.Fprintf(b, `<text x="%g" y="16" class="ct">%s</text>`, padL, template.HTMLEscapeString(c.Title))
	if n == 0 {
		fmt.Fprintf(b, `<text x="%g" y="%g" class="nd">no data</text></svg>`, padL+20, p.chartH/2)
		return template.HTML(b.String())
	}
	p.axes()
	// Bands first, under the lines; then lines, markers and the legend.
	for i, l := range c.Lines {
		col := lineColor(i, l)
		if l.Band {
			p.band(l, col)
		}
		ly := padT + 8 + float64(i)*legendRow
		opacity := ""
		if l.Band {
			opacity = ` fill-opacity="0.35"`
		}
		fmt.Fprintf(b, `<rect x="%g" y="%g" width="10" height="10" fill="%s"%s/><text class="lg" data-line="%d" data-name="%s" x="%g" y="%g">%s</text>`,
			padL+plotW+10, ly-8, col, opacity, i, template.HTMLEscapeString(l.Name), padL+plotW+24, ly+1, template.HTMLEscapeString(truncate(l.Name, maxLegend)))
	}
	for i, l := range c.Lines {
		if !l.Band {
			p.line(i, l, lineColor(i, l))
		}
	}
	drawMarks(b, c.Marks, p.px, p.xmax, padT, padT+p.ph)
	p.drawLimits()
	b.WriteString("</svg>")
	return template.HTML(b.String())
}

// plot is a chart being drawn: its data's bounds and the plot's height.
type plot struct {
	c                      chartSpec
	b                      *strings.Builder
	n                      int // data points
	xmin, xmax, ymin, ymax float64
	ph, chartH             float64
}

// bounds finds the data's bounds and counts its points; it returns the
// longest legend name's length.
func (p *plot) bounds() (longest int) {
	p.xmin, p.xmax, p.ymin, p.ymax = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, l := range p.c.Lines {
		longest = max(longest, len([]rune(truncate(l.Name, maxLegend))))
		for i := range l.X {
			if !l.valid(i, p.c.LogY) {
				continue
			}
			p.xmin, p.xmax = math.Min(p.xmin, l.X[i]), math.Max(p.xmax, l.X[i])
			if l.Band {
				p.ymin, p.ymax = math.Min(p.ymin, l.Lo[i]), math.Max(p.ymax, l.Hi[i])
				continue
			}
			y := l.Y[i]
			p.ymin, p.ymax = math.Min(p.ymin, y), math.Max(p.ymax, y)
			if i < len(l.Hi) && i < len(l.Lo) && !p.c.LogY {
				p.ymin, p.ymax = math.Min(p.ymin, l.Lo[i]), math.Max(p.ymax, l.Hi[i])
			}
			p.n++
		}
	}
	p.ymin, p.ymax = limitsWiden(p.c.Limits, p.c.LogY, p.ymin, p.ymax)
	return longest
}

// scale sets the axes' ranges from the data's bounds: from 0 on a linear
// axis, whole decades on a log one, never empty.
func (p *plot) scale() {
	c := p.c
	if !c.LogY && !c.Bars {
		p.ymin = math.Min(p.ymin, 0)
	}
	if c.Bars {
		p.ymin = 0
	}
	if !c.LogY && c.YTop > p.ymax {
		p.ymax = c.YTop
	}
	if c.LogY {
		p.ymin, p.ymax = math.Pow(10, math.Floor(math.Log10(p.ymin))), math.Pow(10, math.Ceil(math.Log10(p.ymax)))
	}
	if p.ymax <= p.ymin {
		p.ymax = p.ymin + 1
	}
	p.xmin, p.xmax = widenForMarks(c.Marks, p.xmin, p.xmax)
	if p.xmax <= p.xmin {
		p.xmax = p.xmin + 1
	}
}

func (p *plot) px(x float64) float64 { return padL + (x-p.xmin)/(p.xmax-p.xmin)*plotW }

func (p *plot) py(y float64) float64 {
	if p.c.LogY {
		return padT + p.ph - (math.Log10(y)-math.Log10(p.ymin))/(math.Log10(p.ymax)-math.Log10(p.ymin))*p.ph
	}
	return padT + p.ph - (y-p.ymin)/(p.ymax-p.ymin)*p.ph
}

// axes draws the axes, their ticks and labels.
func (p *plot) axes() {
	b, c, pw, ph := p.b, p.c, float64(plotW), p.ph
	fmt.Fprintf(b, `<path class="ax" d="M%g %gV%gH%g"/>`, padL, padT, padT+ph, padL+pw)
	var yt []float64
	if c.LogY {
		for v := p.ymin; v <= p.ymax*1.0001; v *= 10 {
			yt = append(yt, v)
		}
	} else {
		yt = niceTicks(p.ymin, p.ymax, 5)
	}
	for _, v := range yt {
		y := p.py(v)
		fmt.Fprintf(b, `<path class="gr" d="M%g %.1fH%g"/><text class="tk" x="%g" y="%.1f" text-anchor="end">%s</text>`,
			padL, y, padL+pw, padL-4, y+4, template.HTMLEscapeString(c.YTick(v)))
	}
	xt := c.XTicks
	if xt == nil {
		xt = niceTicks(p.xmin, p.xmax, 6)
	}
	for _, v := range xt {
		if v < p.xmin-1e-9 || v > p.xmax+1e-9 {
			continue
		}
		x := p.px(v)
		fmt.Fprintf(b, `<path class="ax" d="M%.1f %gv4"/><text class="tk" x="%.1f" y="%g" text-anchor="middle">%s</text>`,
			x, padT+ph, x, padT+ph+16, template.HTMLEscapeString(c.XTick(v)))
	}
	fmt.Fprintf(b, `<text class="al" x="%g" y="%g" text-anchor="middle">%s</text>`, padL+pw/2, p.chartH-4, template.HTMLEscapeString(c.XLabel))
	fmt.Fprintf(b, `<text class="al" transform="translate(12 %g) rotate(-90)" text-anchor="middle">%s</text>`, padT+ph/2, template.HTMLEscapeString(c.YLabel))
}

// lineColor is line i's colour: its own, or the palette's.
func lineColor(i int, l chartLine) string {
	if l.Color != "" {
		return l.Color
	}
	return palette[i%len(palette)]
}

// band draws a min-max band, broken where points are further apart than
// its Gap.
func (p *plot) band(l chartLine, col string) {
	var up, down []string
	flush := func() {
		slices.Reverse(down)
		if len(up) > 0 {
			fmt.Fprintf(p.b, `<polygon class="band" fill="%s" fill-opacity="0.22" stroke="none" points="%s %s"/>`, col, strings.Join(up, " "), strings.Join(down, " "))
		}
		up, down = nil, nil
	}
	last := math.NaN()
	for k := range l.X {
		if !l.valid(k, p.c.LogY) {
			continue
		}
		if l.Gap > 0 && l.X[k]-last > l.Gap {
			flush()
		}
		last = l.X[k]
		x := p.px(l.X[k])
		up = append(up, fmt.Sprintf("%.1f,%.1f", x, p.py(l.Hi[k])))
		down = append(down, fmt.Sprintf("%.1f,%.1f", x, p.py(l.Lo[k])))
	}
	flush()
}

// line draws line i: a polyline broken where points are further apart
// than its Gap, a marker per point (bars for a bar chart), error bars.
func (p *plot) line(i int, l chartLine, col string) {
	b, c, ph := p.b, p.c, p.ph
	bw := math.Max(1, plotW/float64(p.n+1)*0.8)
	var pts []string
	style := `stroke-width="1.5"`
	if l.Thin {
		style = `stroke-width="1" stroke-dasharray="3 2"`
	}
	flush := func() {
		if len(pts) > 1 {
			fmt.Fprintf(b, `<polyline fill="none" stroke="%s" %s points="%s"/>`, col, style, strings.Join(pts, " "))
		}
		pts = pts[:0]
	}
	valid, alone := l.alonePoints(c.LogY)
	last := math.NaN()
	for _, k := range valid {
		if l.Gap > 0 && l.X[k]-last > l.Gap {
			flush()
		}
		last = l.X[k]
		x, y := p.px(l.X[k]), p.py(l.Y[k])
		if c.Bars {
			fmt.Fprintf(b, `<rect class="pt" data-line="%d"%s x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`, i, l.data(k), x-bw/2, y, bw, math.Max(padT+ph-y, 0.5), col)
			continue
		}
		if k < len(l.Lo) && k < len(l.Hi) && l.Hi[k] > l.Lo[k] {
			lo, hi := p.py(math.Max(l.Lo[k], p.ymin)), p.py(math.Min(l.Hi[k], p.ymax))
			fmt.Fprintf(b, `<path class="eb" stroke="%s" d="M%.1f %.1fV%.1fM%.1f %.1fh8M%.1f %.1fh8"/>`, col, x, lo, hi, x-4, lo, x-4, hi)
		}
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
		r := 1.6
		switch {
		case alone[k]:
			r = 3
		case l.Thin:
			r = 1
		}
		fmt.Fprintf(b, `<circle class="pt" data-line="%d"%s cx="%.1f" cy="%.1f" r="%g" fill="%s"/>`, i, l.data(k), x, y, r, col)
	}
	flush()
}

// data is point k's data attributes: its value, and what it stands for
// (S, N) where the line says.
func (l chartLine) data(k int) string {
	d := ` data-v="` + strconv.FormatFloat(l.Y[k], 'g', -1, 64) + `"`
	if k < len(l.S) {
		d += ` data-s="` + strconv.FormatFloat(l.S[k], 'g', -1, 64) + `"`
	}
	if k < len(l.N) {
		d += ` data-n="` + strconv.FormatFloat(l.N[k], 'g', -1, 64) + `"`
	}
	return d
}

// alonePoints are the line's valid points, and those with no neighbour
// within Gap: each is a line of its own, drawn larger so that it shows.
func (l chartLine) alonePoints(logY bool) ([]int, map[int]bool) {
	var valid []int
	for k := range l.X {
		if l.valid(k, logY) {
			valid = append(valid, k)
		}
	}
	alone := map[int]bool{}
	for j, k := range valid {
		near := func(o int) bool { return o >= 0 && o < len(valid) && math.Abs(l.X[valid[o]]-l.X[k]) <= l.Gap }
		alone[k] = l.Gap > 0 && !near(j-1) && !near(j+1)
	}
	return valid, alone
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// niceTicks returns about n round tick values covering [lo, hi].
func niceTicks(lo, hi float64, n int) []float64 {
	span := hi - lo
	if span <= 0 {
		return []float64{lo}
	}
	step := math.Pow(10, math.Floor(math.Log10(span/float64(n))))
	for _, m := range []float64{1, 2, 5, 10} {
		if span/(step*m) <= float64(n) {
			step *= m
			break
		}
	}
	// Each tick is a whole number of steps, rounded to the step's
	// decimals: 12 steps of 0.2 are 2.4, not 2.4000000000000004.
	decimals := max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	var out []float64
	for k := math.Ceil(lo/step - 1e-9); k*step <= hi+step*1e-9; k++ {
		v, _ := strconv.ParseFloat(strconv.FormatFloat(k*step, 'f', decimals, 64), 64)
		if v == 0 {
			v = 0 // not -0, which would be labelled "-0"
		}
		out = append(out, v)
	}
	return out
}

// secondsTick labels a time axis in seconds: 2.4s, 90s, 3600s.
func secondsTick(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) + "s" }
