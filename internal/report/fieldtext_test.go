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

// A write with a stonewall gets IOR's stonewall columns: the time to the
// deadline and the mean bytes per job by then over it, in MiB/s (IOR's
// stonewall_avg_data_accessed / stonewall_time): 3 jobs of 20, 30 and 40
// MiB by 2.5 s are 12.00 MiB/s.
func TestIORTextStonewall(t *testing.T) {
	bw := 50.0 * (1 << 20)
	s := &results.Summary{Phases: []results.PhaseSummary{{Name: "w", Dir: "01-w", Engine: model.EngineFio, Status: results.StatusCompleted,
		Stonewall: &results.StonewallSummary{DeadlineS: 2, Jobs: 3, Bytes: 90 << 20, MeanJobBytes: 30 << 20, DurationS: 2.5},
		Ops:       []results.OpSummary{{Op: "write", Ops: 10, Bytes: 100 << 20, DurationS: 2, BwBytesPerS: &bw}}}}}
	var b bytes.Buffer
	if err := IORText(&b, &model.RunInfo{}, s); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if row := strings.Fields(l); len(row) > 11 && row[0] == "write" {
			if row[10] != "2.50" || row[11] != "12.00" {
				t.Errorf("stonewall columns %q %q, want 2.50 and 12.00", row[10], row[11])
			}
			return
		}
	}
	t.Fatalf("no write row:\n%s", b.String())
}
