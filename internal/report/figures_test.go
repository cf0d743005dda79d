package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/analyze"
)

// An operation analysed with no time window and no latency (a fio job
// with latency switched off, read back without its series) shows neither a
// rate over "0s" nor a 0 ns latency.
func TestAnalysisWithoutWindowOrLatency(t *testing.T) {
	a := &analyze.Analysis{Source: "x", Kind: "results", Options: analyze.AnalysisOptions{SegmentS: 1}, Phases: []analyze.PhaseAnalysis{{
		Name: "nolat", Engine: "fio", Ops: []analyze.OpAnalysis{{Op: "read", Ops: 100, Bytes: 409600, Requests: 100}},
	}}}
	var text, md bytes.Buffer
	AnalysisText(&text, a)
	AnalysisMarkdown(&md, a)
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String()} {
		for _, bad := range []string{"over 0s", "| 0s |", "0 ns", "0.00 ops/s", "0 B/s"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s shows %q for a figure not measured:\n%s", name, bad, out)
			}
		}
		if !strings.Contains(out, "latency not recorded by this job") {
			t.Errorf("%s does not say latency was not recorded:\n%s", name, out)
		}
	}
}
