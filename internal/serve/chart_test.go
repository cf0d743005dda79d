package serve

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/catalog"
	"github.com/storbench/storbench/internal/report"
)

// The trend's time axis reads as a person would write it (issue 36 item
// 5): runs minutes apart get clock times at round steps, where it read
// "0h 0.001h 0.002h"; a single run is a visible dot in the middle of the
// chart, where it was a 2-pixel dot on the edge; and a trend of one
// operation's figure is drawn in the operation's colour, as the reports
// draw it.
func TestTrendTimeAxis(t *testing.T) {
	f := catalog.FigureRef{Phase: "md", Op: "file-create", Name: "rate"}
	at := func(s string) time.Time {
		v, err := time.Parse("2006-01-02 15:04:05", s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	ticks := regexp.MustCompile(`<text class="tk" x="([0-9.]+)" y="[0-9.]+" text-anchor="middle">([^<]*)</text>`)
	var pts []catalog.Point
	for _, s := range []string{"2026-11-28 23:51:10", "2026-11-28 23:55:40", "2026-11-29 00:02:05", "2026-11-29 00:09:30"} {
		pts = append(pts, catalog.Point{StartedAt: at(s), Value: 1000})
	}
	page := string(trendChart(f, "", pts))
	var got []string
	for _, m := range ticks.FindAllStringSubmatch(page, -1) {
		got = append(got, m[2])
	}
	if strings.Join(got, " ") != "23:55 00:00 00:05" {
		t.Errorf("runs 18 minutes apart: ticks %q, want 23:55 00:00 00:05", got)
	}
	if !strings.Contains(page, ">run start (time, UTC, 2026-11-28 to 2026-11-29)<") {
		t.Errorf("runs 18 minutes apart: the axis label does not say the dates\n%s", page)
	}
	if !strings.Contains(page, `fill="`+report.OpColor("file-create")+`"`) {
		t.Errorf("the trend of file-create is not drawn in its colour %s", report.OpColor("file-create"))
	}

	page = string(trendChart(f, "", pts[:1]))
	pt := regexp.MustCompile(`<circle class="pt"[^>]* cx="([0-9.]+)" cy="[0-9.]+" r="([0-9.]+)"`).FindStringSubmatch(page)
	if pt == nil {
		t.Fatalf("a single run draws no point:\n%s", page)
	}
	x, _ := strconv.ParseFloat(pt[1], 64)
	r, _ := strconv.ParseFloat(pt[2], 64)
	var xs []float64
	for _, m := range ticks.FindAllStringSubmatch(page, -1) {
		v, _ := strconv.ParseFloat(m[1], 64)
		xs = append(xs, v)
	}
	if len(xs) < 2 || x <= xs[0] || x >= xs[len(xs)-1] || r < 3 {
		t.Errorf("a single run is drawn at x=%g (ticks at %v) with radius %g: want a dot of radius 3 or more between the ticks", x, xs, r)
	}
}
