package catalog

import (
	"reflect"
	"testing"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
)

// A run whose one host reached its CPU quota in one phase keeps that
// verdict in the catalog, on SQLite and PostgreSQL; the verdicts of a
// failed phase are not kept (as its figures are not), adding the run
// again keeps it once, and removing the run removes them.
func TestCatalogKeepsClientLimits(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend) {
		c := open(t, b.create(t))
		f, err := results.Create(t.TempDir(), results.RunInfo{RunHead: model.RunHead{RunID: "20260301T120000Z-cl", Name: "limits", StartedAt: t0}})
		if err != nil {
			t.Fatal(err)
		}
		cpu := results.HostVerdict{Host: "client2", Kind: model.VerdictCPU, Text: "client CPU saturated: its cgroup's quota of 0.1 CPUs (cores 0-1) 95% used or more in 8 of 8 s"}
		for _, p := range []results.PhaseSummary{
			{Name: "randread", Engine: model.EngineFio, Status: results.StatusCompleted, ClientLimits: []results.HostVerdict{cpu}},
			{Name: "failed", Engine: model.EngineFio, Status: results.StatusFailed, ClientLimits: []results.HostVerdict{cpu}},
			{Name: "write", Engine: model.EngineFio, Status: results.StatusCompleted},
		} {
			if err := f.AddPhase(p, nil); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.Finish(results.StatusCompleted, nil); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if _, err := c.Add(t.Context(), f.Path); err != nil {
				t.Fatal(err)
			}
		}
		got, err := c.ClientLimits(t.Context(), "20260301T120000Z-cl")
		want := []ClientLimit{{Phase: "randread", Host: "client2", Kind: "cpu", Text: cpu.Text}}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("client limits %+v (%v), want %+v", got, err, want)
		}
		if n, err := c.Remove(t.Context(), []string{"20260301T120000Z-cl"}); err != nil || n != 1 {
			t.Fatalf("remove: %d, %v", n, err)
		}
		if got, err := c.ClientLimits(t.Context(), "20260301T120000Z-cl"); err != nil || len(got) != 0 {
			t.Errorf("after the run's removal: %+v (%v)", got, err)
		}
	})
}
