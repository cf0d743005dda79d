package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/analyze"
)

// compare's text and Markdown say that a host's client limits differ
// before any figure's percentage.
func TestCompareSaysClientLimitsFirst(t *testing.T) {
	c := &analyze.Comparison{Before: "a", After: "b", ThresholdPct: 5, Confidence: 0.95,
		ClientLimits: []analyze.ClientLimitChange{{Phase: "randread", Host: "client2", Before: []string{},
			After: []string{"client CPU saturated: cores 0-1 95% busy or more in 8 of 8 s"}}},
		Phases: []analyze.PhaseComparison{{Name: "randread", Engine: "fio", Ops: []analyze.OpComparison{{Op: "read",
			Figures: []analyze.Figure{{Name: "iops", Unit: "ops/s", Before: 100, After: 50, Delta: -50, RelPct: -50, Verdict: analyze.Slower}}}}}}}
	for name, write := range map[string]func(*bytes.Buffer){
		"text":     func(b *bytes.Buffer) { CompareText(b, c) },
		"markdown": func(b *bytes.Buffer) { CompareMarkdown(b, c) },
	} {
		var b bytes.Buffer
		write(&b)
		out := b.String()
		said := strings.Index(out, "randread, host client2: none -> client CPU saturated: cores 0-1 95% busy or more in 8 of 8 s")
		pct := strings.Index(out, "-50.00%")
		if said < 0 || pct < 0 || said > pct {
			t.Errorf("%s: the client limits said at %d, the first percentage at %d:\n%s", name, said, pct, out)
		}
	}
}
