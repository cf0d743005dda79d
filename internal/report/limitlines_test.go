package report

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/results"
)

// A limit is drawn across its chart at its value on the chart's own y
// axis, the axis widened to hold it when the data stay far below it
// (a crossed p99 under 1 ns on latencies of milliseconds, a rate limit
// above every second's rate), in red when crossed.
func TestLimitLineOnItsChart(t *testing.T) {
	v, no := 5e6, false
	ps := results.PhaseSummary{Limits: []results.LimitResult{
		{Limit: "rr/read/p99<1ms", Value: &v, Passed: &no, Unit: "ns"},
		{Limit: "rr/read/rate>20k", Unit: "ops/s"},
	}}
	lat := svgChart(chartSpec{Title: "lat", XTick: pctTick, YTick: compact, Lines: []chartLine{{Name: "read", X: []float64{0, 1, 2}, Y: []float64{2e6, 4e6, 5e6}}}, LogY: true,
		Limits: limitsOn(ps, isLatencyFigure, 1)})
	rate := svgChart(chartSpec{Title: "ops", XTick: secondsTick, YTick: compact, Lines: []chartLine{{Name: "read", X: []float64{0, 1}, Y: []float64{900, 1000}}},
		Limits: limitsOn(ps, isFigure("rate"), 1)})
	for _, c := range []struct {
		svg, limit, crossed string
		y                   float64
	}{{string(lat), "limit rr/read/p99&lt;1ms", "true", 1e6}, {string(rate), "limit rr/read/rate&gt;20k", "false", 20e3}} {
		if strings.Count(c.svg, `class="limit"`) != 1 || !strings.Contains(c.svg, `data-limit="`+c.limit+`" data-y="`+strconv.FormatFloat(c.y, 'g', -1, 64)+`" data-crossed="`+c.crossed+`"`) {
			t.Fatalf("no line for %s at %g:\n%s", c.limit, c.y, c.svg)
		}
		r := regexp.MustCompile(`data-y-range="([^ ]+) ([^"]+)"`).FindStringSubmatch(c.svg)
		lo, _ := strconv.ParseFloat(r[1], 64)
		hi, _ := strconv.ParseFloat(r[2], 64)
		if c.y < lo || c.y > hi {
			t.Errorf("%s: the y axis %g-%g leaves out the limit %g", c.limit, lo, hi, c.y)
		}
	}
	if !strings.Contains(string(lat), `stroke="#d62728"`) {
		t.Error("the crossed limit is not drawn red")
	}
}

func isLatencyFigure(f string) bool { return f == "p99" || f == "p50" || f == "p99.9" || f == "mean" }
