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
	// YTop, when above the data, is where a linear y axis ends.
	YTop float64
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
	var b strings.Builder
	n := 0
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	longest := 0
	for _, l := range c.Lines {
		longest = max(longest, len([]rune(truncate(l.Name, maxLegend))))
		for i := range l.X {
			if !l.valid(i, c.LogY) {
				continue
			}
			xmin, xmax = math.Min(xmin, l.X[i]), math.Max(xmax, l.X[i])
			if l.Band {
				ymin, ymax = math.Min(ymin, l.Lo[i]), math.Max(ymax, l.Hi[i])
				continue
			}
			y := l.Y[i]
			ymin, ymax = math.Min(ymin, y), math.Max(ymax, y)
			if i < len(l.Hi) && i < len(l.Lo) && !c.LogY {
				ymin, ymax = math.Min(ymin, l.Lo[i]), math.Max(ymax, l.Hi[i])
			}
			n++
		}
	}
	// One width for every legend that fits it, so that charts line up.
	legendW := math.Max(minLegend, 24+legendChar*float64(longest)+padR)
	chartW := padL + plotW + 10 + legendW
	ph := math.Max(plotH, float64(len(c.Lines))*legendRow+8)
	chartH := padT + ph + padB
	// data-zero is the y of the value 0 on a linear axis (-1 on a log one),
	// so a page can read values back from the markers.
	zero := -1.0
	if !c.LogY {
		zero = padT + ph
	}
	fmt.Fprintf(&b, `<svg class="chart" data-points="%d" data-zero="%.1f" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %g %g" width="%g" height="%g" role="img" aria-label="%s">`,
		n, zero, chartW, chartH, chartW, chartH, template.HTMLEscapeString(c.Title))
	fmt.Fprintf(&b, `<text x="%g" y="16" class="ct">%s</text>`, padL, template.HTMLEscapeString(c.Title))
	if n == 0 {
		fmt.Fprintf(&b, `<text x="%g" y="%g" class="nd">no data</text></svg>`, padL+20, chartH/2)
		return template.HTML(b.String())
	}
	if !c.LogY && !c.Bars {
		ymin = math.Min(ymin, 0)
	}
	if c.Bars {
		ymin = 0
	}
	if !c.LogY && c.YTop > ymax {
		ymax = c.YTop
	}
	if c.LogY {
		ymin, ymax = math.Pow(10, math.Floor(math.Log10(ymin))), math.Pow(10, math.Ceil(math.Log10(ymax)))
	}
	if ymax <= ymin {
		ymax = ymin + 1
	}
	if xmax <= xmin {
		xmax = xmin + 1
	}
	pw := plotW
	px := func(x float64) float64 { return padL + (x-xmin)/(xmax-xmin)*pw }
	py := func(y float64) float64 {
		if c.LogY {
			return padT + ph - (math.Log10(y)-math.Log10(ymin))/(math.Log10(ymax)-math.Log10(ymin))*ph
		}
		return padT + ph - (y-ymin)/(ymax-ymin)*ph
	}
	// Axes and ticks.
	fmt.Fprintf(&b, `<path class="ax" d="M%g %gV%gH%g"/>`, padL, padT, padT+ph, padL+pw)
	var yt []float64
	if c.LogY {
		for v := ymin; v <= ymax*1.0001; v *= 10 {
			yt = append(yt, v)
		}
	} else {
		yt = niceTicks(ymin, ymax, 5)
	}
	for _, v := range yt {
		y := py(v)
		fmt.Fprintf(&b, `<path class="gr" d="M%g %.1fH%g"/><text class="tk" x="%g" y="%.1f" text-anchor="end">%s</text>`,
			padL, y, padL+pw, padL-4, y+4, template.HTMLEscapeString(c.YTick(v)))
	}
	xt := c.XTicks
	if xt == nil {
		xt = niceTicks(xmin, xmax, 6)
	}
	for _, v := range xt {
		if v < xmin-1e-9 || v > xmax+1e-9 {
			continue
		}
		x := px(v)
		fmt.Fprintf(&b, `<path class="ax" d="M%.1f %gv4"/><text class="tk" x="%.1f" y="%g" text-anchor="middle">%s</text>`,
			x, padT+ph, x, padT+ph+16, template.HTMLEscapeString(c.XTick(v)))
	}
	fmt.Fprintf(&b, `<text class="al" x="%g" y="%g" text-anchor="middle">%s</text>`, padL+pw/2, chartH-4, template.HTMLEscapeString(c.XLabel))
	fmt.Fprintf(&b, `<text class="al" transform="translate(12 %g) rotate(-90)" text-anchor="middle">%s</text>`, padT+ph/2, template.HTMLEscapeString(c.YLabel))
	// Bands first, under the lines; then lines, markers and the legend.
	bw := math.Max(1, pw/float64(n+1)*0.8)
	for i, l := range c.Lines {
		col := palette[i%len(palette)]
		if l.Color != "" {
			col = l.Color
		}
		if l.Band {
			var up, down []string
			flush := func() {
				slices.Reverse(down)
				if len(up) > 0 {
					fmt.Fprintf(&b, `<polygon class="band" fill="%s" fill-opacity="0.22" stroke="none" points="%s %s"/>`, col, strings.Join(up, " "), strings.Join(down, " "))
				}
				up, down = nil, nil
			}
			last := math.NaN()
			for k := range l.X {
				if !l.valid(k, c.LogY) {
					continue
				}
				if l.Gap > 0 && l.X[k]-last > l.Gap {
					flush()
				}
				last = l.X[k]
				x := px(l.X[k])
				up = append(up, fmt.Sprintf("%.1f,%.1f", x, py(l.Hi[k])))
				down = append(down, fmt.Sprintf("%.1f,%.1f", x, py(l.Lo[k])))
			}
			flush()
		}
		ly := padT + 8 + float64(i)*legendRow
		opacity := ""
		if l.Band {
			opacity = ` fill-opacity="0.35"`
		}
		fmt.Fprintf(&b, `<rect x="%g" y="%g" width="10" height="10" fill="%s"%s/><text class="lg" x="%g" y="%g">%s</text>`,
			padL+pw+10, ly-8, col, opacity, padL+pw+24, ly+1, template.HTMLEscapeString(truncate(l.Name, maxLegend)))
	}
	for i, l := range c.Lines {
		if l.Band {
			continue
		}
		col := palette[i%len(palette)]
		if l.Color != "" {
			col = l.Color
		}
		var pts []string
		style := `stroke-width="1.5"`
		if l.Thin {
			style = `stroke-width="1" stroke-dasharray="3 2"`
		}
		flush := func() {
			if len(pts) > 1 {
				fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" %s points="%s"/>`, col, style, strings.Join(pts, " "))
			}
			pts = pts[:0]
		}
		// A point with no neighbour within Gap is a line of its own:
		// drawn larger, so that it shows.
		var valid []int
		for k := range l.X {
			if l.valid(k, c.LogY) {
				valid = append(valid, k)
			}
		}
		alone := map[int]bool{}
		for j, k := range valid {
			near := func(o int) bool { return o >= 0 && o < len(valid) && math.Abs(l.X[valid[o]]-l.X[k]) <= l.Gap }
			alone[k] = l.Gap > 0 && !near(j-1) && !near(j+1)
		}
		last := math.NaN()
		for _, k := range valid {
			if l.Gap > 0 && l.X[k]-last > l.Gap {
				flush()
			}
			last = l.X[k]
			x, y := px(l.X[k]), py(l.Y[k])
			if c.Bars {
				fmt.Fprintf(&b, `<rect class="pt" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`, x-bw/2, y, bw, math.Max(padT+ph-y, 0.5), col)
				continue
			}
			if k < len(l.Lo) && k < len(l.Hi) && l.Hi[k] > l.Lo[k] {
				lo, hi := py(math.Max(l.Lo[k], ymin)), py(math.Min(l.Hi[k], ymax))
				fmt.Fprintf(&b, `<path class="eb" stroke="%s" d="M%.1f %.1fV%.1fM%.1f %.1fh8M%.1f %.1fh8"/>`, col, x, lo, hi, x-4, lo, x-4, hi)
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
			r := 1.6
			switch {
			case alone[k]:
				r = 3
			case l.Thin:
				r = 1
			}
			fmt.Fprintf(&b, `<circle class="pt" data-line="%d" cx="%.1f" cy="%.1f" r="%g" fill="%s"/>`, i, x, y, r, col)
		}
		flush()
	}
	b.WriteString("</svg>")
	return template.HTML(b.String())
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
