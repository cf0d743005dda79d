package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
)

// A run with a sweep gets a chart of the headline against the swept
// parameter, one marker per point and an error bar where a point repeated.
func TestHTMLHasSweepChart(t *testing.T) {
	var sws []results.Sweep
	for _, nj := range []string{"1", "2", "4"} {
		st := results.DescribeStat([]float64{100 << 20, 110 << 20, 105 << 20}, 0.95)
		sws = append(sws, results.Sweep{Group: "g", Engine: "fio", Op: "read", Headline: "bw_bytes_per_s",
			Point:   []results.KV{{Key: "rw", Value: "read"}, {Key: "numjobs", Value: nj}},
			Metrics: map[string]results.Stat{"bw_bytes_per_s": st}})
	}
	var b bytes.Buffer
	if err := HTML(&b, HTMLInput{Summary: &results.Summary{RunHead: model.RunHead{Name: "s"}, Sweeps: sws}}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	i := strings.Index(page, `aria-label="g read: bandwidth by numjobs"`)
	if i < 0 {
		t.Fatalf("no sweep chart in the page")
	}
	chart := page[strings.LastIndex(page[:i], "<svg"):]
	chart = chart[:strings.Index(chart, "</svg>")]
	if !strings.Contains(chart, `data-points="3"`) || strings.Count(chart, `class="pt"`) != 3 || strings.Count(chart, `class="eb"`) != 3 {
		t.Errorf("sweep chart lacks its 3 points or their error bars:\n%s", chart)
	}
	if !strings.Contains(chart, ">rw=read<") {
		t.Errorf("the line is not named by the other parameter:\n%s", chart)
	}
}
