package results

import (
	"strings"
	"testing"

	fig "github.com/storbench/storbench/internal/figures"
)

// A figure not measured is left out, never 0.
func TestOfLeavesOutWhatWasNotMeasured(t *testing.T) {
	got := OpSummary{Op: "stat", Errors: 3}.Figures()
	if len(got) != 1 || got[0] != (fig.Named{Name: fig.Errors, Value: 3}) {
		t.Fatalf("got %v, want only errors", got)
	}
	r := 5.0
	got = OpSummary{Op: "read", OpsPerS: &r, Lat: &LatencySummary{P99Ns: 7}}.Figures()
	var names []string
	for _, n := range got {
		names = append(names, n.Name)
	}
	if strings.Join(names, ",") != "rate,mean,p50,p99,p99.9,errors" {
		t.Fatalf("got %v", names)
	}
}
