package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
)

// A direction whose iterations measured no bandwidth or rate gets NA in
// IOR's table, never 0.00: a figure not measured is absent.
func TestIORTextUnmeasuredIsNA(t *testing.T) {
	rate := 100.0
	s := &results.Summary{Phases: []results.PhaseSummary{{Name: "w", Dir: "01-w", Engine: model.EngineFio, Status: results.StatusCompleted,
		Ops: []results.OpSummary{{Op: "write", Ops: 10, DurationS: 1, OpsPerS: &rate}}}}}
	var b bytes.Buffer
	if err := IORText(&b, &model.RunInfo{}, s); err != nil {
		t.Fatal(err)
	}
	var row []string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "write") {
			row = strings.Fields(l)
		}
	}
	if len(row) < 10 {
		t.Fatalf("no write row:\n%s", b.String())
	}
	if strings.Join(row[1:5], " ") != "NA NA NA NA" || row[5] != "100.00" || row[9] != "1.00000" || row[23] != "NA" {
		t.Errorf("write row %q: want NA for the bandwidth and transfer size no iteration measured, 100.00 op/s, 1.00000 s", row)
	}
}
