package catalog

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
)

// genRun describes a generated results folder: real files written through
// internal/results, as a run writes them, with figures drawn around a mean.
type genRun struct {
	i      int
	name   string
	start  time.Time
	labels map[string]string
	fs     string
	// scale multiplies every throughput (0.9: 10% slower) and divides
	// every latency.
	scale float64
	// noise is the run-to-run coefficient of variation of the figures.
	noise float64
	seed  uint64
	hosts int
	// unfinished leaves run.json saying running, as a crashed run does.
	unfinished bool
	// s3server is the S3 server's Server header in the fingerprint, as
	// a run with s3 phases records it ("" for a run without).
	s3server string
	// limits are the seq-read phase's limits and verdicts, as the run
	// judged them.
	limits []results.LimitResult
}

func (g genRun) runID() string {
	return fmt.Sprintf("%s-%05d", g.start.UTC().Format("20060102T150405Z"), g.i)
}

// writeGen writes the folder under root and returns its path.
func writeGen(tb testing.TB, root string, g genRun) string {
	tb.Helper()
	if g.scale == 0 {
		g.scale = 1
	}
	if g.hosts == 0 {
		g.hosts = 1
	}
	if g.fs == "" {
		g.fs = "xfs"
	}
	rng := rand.New(rand.NewPCG(g.seed, uint64(g.i)))
	agents := make([]model.AgentInfo, g.hosts)
	for h := range agents {
		agents[h] = model.AgentInfo{Host: fmt.Sprintf("client%d", h+1)}
	}
	f, err := results.Create(root, results.RunInfo{
		RunHead: model.RunHead{RunID: g.runID(), Name: g.name, StartedAt: g.start}, CommandLine: []string{"storbench", "run", "suite.yaml"},
		Versions: results.Versions{Storbench: "v1.2.3", Fio: "fio-3.36", Kernel: "6.1.0-test"}, Agents: agents,
		Labels: g.labels,
		Fingerprint: &model.Fingerprint{Kernel: "6.1.0-test", Hosts: g.hosts, S3Server: g.s3server, Targets: []model.TargetPrint{
			{Dir: "/mnt/bench", FSType: g.fs, MountOptions: "rw,noatime", Source: "/dev/nvme0n1", Devices: []string{"Test NVMe 1TB"}}}},
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
		o.Lat = &results.LatencySummary{MeanNs: l, P50Ns: int64(l * 0.9), P99Ns: int64(draw(3*lat) / g.scale), P999Ns: int64(draw(6*lat) / g.scale)}
		return o
	}
	phases := []struct {
		name string
		eng  model.EngineName
		ops  []results.OpSummary
	}{
		{"seq-read", model.EngineFio, []results.OpSummary{op("read", 2e9, 2000, 4e6)}},
		{"rand-write", model.EngineFio, []results.OpSummary{op("write", 4e8, 1e5, 3e5)}},
		{"md", model.EngineMD, []results.OpSummary{op("create", 0, 5e4, 2e4), op("stat", 0, 2e5, 5e3)}},
	}
	for _, p := range phases {
		ps := results.PhaseSummary{Name: p.name, Engine: p.eng, Status: results.StatusCompleted, Ops: p.ops}
		if p.name == "seq-read" {
			ps.Limits = g.limits
		}
		if g.hosts > 1 {
			for h := range g.hosts {
				ho := results.HostOps{Host: agents[h].Host}
				for _, o := range p.ops {
					x := o
					r := *o.OpsPerS / float64(g.hosts)
					x.OpsPerS = &r
					ho.Ops = append(ho.Ops, x)
				}
				ps.PerHost = append(ps.PerHost, ho)
				ps.Hosts = append(ps.Hosts, ho.Host)
			}
		}
		if err := f.AddPhase(ps, nil); err != nil {
			tb.Fatal(err)
		}
	}
	if !g.unfinished {
		if err := f.Finish(results.StatusCompleted, nil); err != nil {
			tb.Fatal(err)
		}
	}
	return f.Path
}

// tempCatalog opens a new SQLite catalog in a temporary folder.
func tempCatalog(tb testing.TB) (*Catalog, string) {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "catalog.db")
	c, err := Open(tb.Context(), path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c, path
}

func fileBytes(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
