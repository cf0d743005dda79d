package chromium

import (
	"encoding/json"
	"math"
	"testing"
)

// Chart is one chart of a page as Chromium drew it: its title, its y
// axis (the pixels of its bottom and top and the values there, on a log
// scale or not) and its lines with their markers.
type Chart struct {
	Title  string      `json:"title"`
	YPx    [2]float64  `json:"ypx"`
	YRange [2]float64  `json:"yrange"`
	Log    bool        `json:"log"`
	Lines  []ChartLine `json:"lines"`
}

// ChartLine is one line of a chart: its full name and its markers.
type ChartLine struct {
	Name   string       `json:"name"`
	Points []ChartPoint `json:"points"`
}

// ChartPoint is one marker: where it is drawn (Y, the pixel of its centre
// or of a bar's top), the value it carries (V), and what it stands for
// where the chart says (S: the seconds a rate is over; N: the samples a
// latency is of), NaN where it does not.
type ChartPoint struct {
	Y float64 `json:"y"`
	V float64 `json:"v"`
	S float64 `json:"s"`
	N float64 `json:"n"`
}

// UnmarshalJSON reads a point whose absent attributes came as null.
func (p *ChartPoint) UnmarshalJSON(b []byte) error {
	var raw struct{ Y, V, S, N *float64 }
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	get := func(f *float64) float64 {
		if f == nil {
			return math.NaN()
		}
		return *f
	}
	p.Y, p.V, p.S, p.N = get(raw.Y), get(raw.V), get(raw.S), get(raw.N)
	return nil
}

// ValueAt is the value of the y axis at pixel y.
func (c Chart) ValueAt(y float64) float64 {
	f := (c.YPx[0] - y) / (c.YPx[0] - c.YPx[1])
	if c.Log {
		lo, hi := math.Log10(c.YRange[0]), math.Log10(c.YRange[1])
		return math.Pow(10, lo+f*(hi-lo))
	}
	return c.YRange[0] + f*(c.YRange[1]-c.YRange[0])
}

// PixelValue is how much value one pixel of the axis is at value v.
func (c Chart) PixelValue(v float64) float64 {
	px := math.Abs(c.YPx[0] - c.YPx[1])
	if c.Log {
		return v * (math.Pow(c.YRange[1]/c.YRange[0], 1/px) - 1)
	}
	return (c.YRange[1] - c.YRange[0]) / px
}

// chartsJS reads every chart of the page with the markers of each line.
const chartsJS = `JSON.stringify(Array.from(document.querySelectorAll('svg.chart')).map(svg => {
  const nums = a => (svg.getAttribute(a) || '').split(' ').map(parseFloat);
  const num = (el, a) => el.hasAttribute(a) ? parseFloat(el.getAttribute(a)) : null;
  const lines = {};
  for (const t of svg.querySelectorAll('text.lg')) lines[t.getAttribute('data-line')] = {name: t.getAttribute('data-name'), points: []};
  for (const m of svg.querySelectorAll('.pt')) {
    const k = m.getAttribute('data-line');
    const y = m.tagName === 'circle' ? parseFloat(m.getAttribute('cy')) : parseFloat(m.getAttribute('y'));
    (lines[k] ||= {name: '', points: []}).points.push({y: y, v: num(m, 'data-v'), s: num(m, 'data-s'), n: num(m, 'data-n')});
  }
  return {title: svg.getAttribute('aria-label'), ypx: nums('data-y-px'), yrange: nums('data-y-range'),
    log: svg.getAttribute('data-y-log') === 'true', lines: Object.values(lines)};
}))`

// Charts reads every chart of the page that eval evaluates in (Check's
// extra function gives it).
func Charts(t testing.TB, eval func(string) string) []Chart {
	t.Helper()
	var out []Chart
	if err := json.Unmarshal([]byte(eval(chartsJS)), &out); err != nil {
		t.Fatalf("charts: %v", err)
	}
	return out
}

// phaseOfChartJS names, for every chart of the page in order, the phase
// whose section holds it: the text of the h3 before it, up to its last
// " (" (the engine and status).
const phaseOfChartJS = `JSON.stringify(Array.from(document.querySelectorAll('svg.chart')).map(svg => {
  const hs = Array.from(document.querySelectorAll('h3')).filter(h => h.compareDocumentPosition(svg) & Node.DOCUMENT_POSITION_FOLLOWING);
  if (hs.length === 0) return '';
  const t = hs[hs.length - 1].textContent;
  return t.lastIndexOf(' (') >= 0 ? t.slice(0, t.lastIndexOf(' (')) : t;
}))`

// PhaseCharts reads every chart of the page with the phase it is drawn
// for ("" above the phases: sweeps, comparisons).
func PhaseCharts(t testing.TB, eval func(string) string) (charts []Chart, phases []string) {
	t.Helper()
	charts = Charts(t, eval)
	if err := json.Unmarshal([]byte(eval(phaseOfChartJS)), &phases); err != nil || len(phases) != len(charts) {
		t.Fatalf("phases of the charts: %v (%d for %d charts)", err, len(phases), len(charts))
	}
	return charts, phases
}
