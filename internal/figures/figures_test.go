package figures

import (
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/results"
)

func TestParse(t *testing.T) {
	f, err := Parse("suite/randread/read/p99.9@client2")
	if err != nil || f != (Ref{Phase: "suite/randread", Op: "read", Name: P999, Host: "client2"}) {
		t.Fatalf("got %+v, %v", f, err)
	}
	for _, bad := range []string{"", "read/p99", "/read/p99", "randread//p99", "randread/read/p98"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// A figure not measured is left out, never 0.
func TestOfLeavesOutWhatWasNotMeasured(t *testing.T) {
	got := Of(results.OpSummary{Op: "stat", Errors: 3})
	if len(got) != 1 || got[0] != (Named{Errors, 3}) {
		t.Fatalf("got %v, want only errors", got)
	}
	r := 5.0
	got = Of(results.OpSummary{Op: "read", OpsPerS: &r, Lat: &results.LatencySummary{P99Ns: 7}})
	var names []string
	for _, n := range got {
		names = append(names, n.Name)
	}
	if strings.Join(names, ",") != "rate,mean,p50,p99,p99.9,errors" {
		t.Fatalf("got %v", names)
	}
}
