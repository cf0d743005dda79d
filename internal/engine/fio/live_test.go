package fio

import (
	"os"
	"testing"
)

// A status report's latency for live snapshots holds every completed
// operation of each direction, and its percentiles are fio's own within
// one live bucket (2.2%).
func TestLiveLatFromFioOutput(t *testing.T) {
	b, err := os.ReadFile("../../../testdata/results/fio-a/01-randrw/hosts/vm/fio.json")
	if err != nil {
		t.Fatal(err)
	}
	o, err := ParseOutput(b)
	if err != nil {
		t.Fatal(err)
	}
	ops, err := o.OpStats()
	if err != nil {
		t.Fatal(err)
	}
	live := o.LiveLat()
	if len(live) != len(ops) || len(live) == 0 {
		t.Fatalf("%d live operations, fio has %d", len(live), len(ops))
	}
	for i, l := range live {
		want := ops[i].Lat.Bins
		if l.Op != ops[i].Op || l.N != want.Total() {
			t.Errorf("%s: %d operations, fio's %s has %d", l.Op, l.N, ops[i].Op, want.Total())
		}
		for _, p := range []float64{50, 99, 99.9} {
			got, ok := l.Percentile(p)
			exact := want.Percentile(p)
			if !ok || float64(got) < float64(exact)*0.99 || float64(got) > float64(exact)*1.023 {
				t.Errorf("%s p%g: %d ns live, fio %d ns", l.Op, p, got, exact)
			}
		}
	}
}
