package serve

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/catalog"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/report"
	"github.com/storbench/storbench/internal/results"
)

// genRun is a generated results folder, written through internal/results
// as a run writes it: seq-read (read) and md (create) phases with figures
// drawn around a mean times scale.
type genRun struct {
	i      int
	start  time.Time
	labels map[string]string
	scale  float64
	noise  float64
}

func (g genRun) id() string {
	return fmt.Sprintf("%s-%04d", g.start.UTC().Format("20060102T150405Z"), g.i)
}

// writeRun writes the folder of g under root and returns its path.
func writeRun(tb testing.TB, root string, g genRun) string {
	tb.Helper()
	rng := rand.New(rand.NewPCG(7, uint64(g.i)))
	f, err := results.Create(root, results.RunInfo{
		RunHead: model.RunHead{RunID: g.id(), Name: fmt.Sprintf("suite-%d", g.i), StartedAt: g.start}, CommandLine: []string{"storbench", "run", "suite.yaml"},
		Versions: results.Versions{Storbench: "v1.2.3", Fio: "fio-3.36", Kernel: "6.1.0-test"},
		Agents:   []model.AgentInfo{{Host: "client1"}}, Labels: g.labels,
		Fingerprint: &model.Fingerprint{Kernel: "6.1.0-test", Hosts: 1, Targets: []model.TargetPrint{
			{Dir: "/mnt/bench", FSType: "xfs", MountOptions: "rw,noatime", Source: "/dev/nvme0n1", Devices: []string{"Test NVMe 1TB"}}}},
	})
	if err != nil {
		tb.Fatal(err)
	}
	draw := func(mean float64) float64 { return mean * (1 + g.noise*rng.NormFloat64()) }
	op := func(name string, bw, rate, lat float64) results.OpSummary {
		o := results.OpSummary{Op: name, Ops: 1000, DurationS: 10}
		r := draw(rate) * g.scale
		o.OpsPerS = &r
		if bw > 0 {
			b := r * bw / rate
			o.BwBytesPerS = &b
			o.Bytes = uint64(b * 10)
		}
		l := draw(lat) / g.scale
		o.Lat = &results.LatencySummary{MeanNs: l, P50Ns: int64(l * 0.9), P99Ns: int64(3 * l), P999Ns: int64(6 * l)}
		return o
	}
	for _, p := range []results.PhaseSummary{
		{Name: "seq-read", Engine: model.EngineFio, Ops: []results.OpSummary{op("read", 2e9, 2000, 4e6)}},
		{Name: "md", Engine: model.EngineMD, Ops: []results.OpSummary{op("create", 0, 5e4, 2e4)}},
	} {
		p.Status = results.StatusCompleted
		if err := f.AddPhase(p, nil); err != nil {
			tb.Fatal(err)
		}
	}
	if err := f.Finish(results.StatusCompleted, nil); err != nil {
		tb.Fatal(err)
	}
	return f.Path
}

// fixture is a catalog of generated runs, opened read-only as serve
// opens it.
type fixture struct {
	cat     *catalog.Catalog
	path    string
	root    string
	runs    []genRun
	folders []string
}

// newFixture writes six runs a day apart, three labelled tuning=default
// and three tuning=tuned (30% faster), indexes them and opens the catalog
// read-only. The first run's folder has its report.html.
func newFixture(tb testing.TB) *fixture {
	tb.Helper()
	fx := &fixture{root: tb.TempDir()}
	fx.path = filepath.Join(tb.TempDir(), "catalog.db")
	w, err := catalog.Open(tb.Context(), fx.path)
	if err != nil {
		tb.Fatal(err)
	}
	t0 := time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC)
	for i := range 6 {
		g := genRun{i: i, start: t0.Add(time.Duration(i) * 24 * time.Hour), scale: 1, noise: 0.01, labels: map[string]string{"tuning": "default"}}
		if i%2 == 1 {
			g.scale, g.labels = 1.3, map[string]string{"tuning": "tuned"}
		}
		dir := writeRun(tb, fx.root, g)
		if i == 0 {
			page, err := report.HTMLFolder(dir, "")
			if err != nil {
				tb.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "report.html"), page, 0o644); err != nil {
				tb.Fatal(err)
			}
		}
		if _, err := w.Add(tb.Context(), dir); err != nil {
			tb.Fatal(err)
		}
		fx.runs, fx.folders = append(fx.runs, g), append(fx.folders, dir)
	}
	w.Close()
	fx.cat, err = catalog.OpenReadOnly(tb.Context(), fx.path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { fx.cat.Close() })
	return fx
}

func catalogOpenRO(tb testing.TB, path string) (*catalog.Catalog, error) {
	c, err := catalog.OpenReadOnly(tb.Context(), path)
	if err == nil {
		tb.Cleanup(func() { c.Close() })
	}
	return c, err
}
