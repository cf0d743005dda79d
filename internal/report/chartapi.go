package report

import "html/template"

// Series is one line of a Chart: points (X[i], Y[i]).
type Series struct {
	Name string
	X, Y []float64
	// Color, when set, replaces the palette's (OpColor: an operation's).
	Color string
}

// Chart describes a line chart drawn as the report draws its own: inline
// SVG with labelled axes, round ticks, a legend and one marker (class
// "pt") per point. Other pages (storbench serve) draw with it.
type Chart struct {
	Title, XLabel, YLabel string
	Series                []Series
	// XTick and YTick format axis values; XTicks, when set, are the x
	// positions of the ticks (round values of the axis otherwise).
	XTick, YTick func(float64) string
	XTicks       []float64
	// XSpan, when set (XSpan[1] > XSpan[0]), is the least the x axis
	// covers: room around a single point, which would sit on the edge.
	XSpan [2]float64
}

// SVGChart renders c to inline SVG; the y axis starts at 0 (or the
// lowest point, when below) and ends on a round tick.
func SVGChart(c Chart) template.HTML {
	s := chartSpec{Title: c.Title, XLabel: c.XLabel, YLabel: c.YLabel, XTick: c.XTick, YTick: c.YTick, XTicks: c.XTicks, XSpan: c.XSpan}
	lo, hi := 0.0, 0.0
	for _, l := range c.Series {
		s.Lines = append(s.Lines, chartLine{Name: l.Name, X: l.X, Y: l.Y, Color: l.Color})
		for _, y := range l.Y {
			lo, hi = min(lo, y), max(hi, y)
		}
	}
	// The axis ends on a round tick at or above the highest point, so
	// that the top of every line can be read off a labelled tick.
	if t := niceTicks(lo, hi, 5); len(t) > 1 && t[len(t)-1] < hi {
		s.YTop = t[len(t)-1] + (t[1] - t[0])
	}
	return svgChart(s)
}

// NiceTicks returns about n round values covering [lo, hi].
func NiceTicks(lo, hi float64, n int) []float64 { return niceTicks(lo, hi, n) }

// ChartCSS is the style the charts of SVGChart expect.
const ChartCSS = `svg.chart{border:1px solid #eee;background:#fff}
svg .ct{font-size:13px;font-weight:600}svg .tk,svg .lg{font-size:10px;fill:#333}svg .al{font-size:11px;fill:#555}svg .nd{font-size:12px;fill:#999}
svg .ax{stroke:#444;fill:none}svg .gr{stroke:#eee}`
