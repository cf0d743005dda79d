package catalog

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/model"
)

// BenchmarkIndex1000Folders indexes 1,000 generated results folders
// (written through internal/results as runs write them) into a new
// SQLite catalog, as `storbench catalog add results/` does; the issue asks
// for under 30 s. Each iteration is all 1,000.
func BenchmarkIndex1000Folders(b *testing.B) {
	root := b.TempDir()
	for i := range 1000 {
		writeGen(b, root, genRun{i: i, name: "nightly", start: t0.Add(time.Duration(i) * time.Hour),
			labels: map[string]string{"tuning": []string{"default", "tuned"}[i%2]}, noise: 0.02, seed: 7, hosts: 1 + i%4})
	}
	dirs, err := Folders([]string{root})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		where := filepath.Join(b.TempDir(), "catalog.db")
		c, err := Open(context.Background(), where)
		if err != nil {
			b.Fatal(err)
		}
		start, cpu0 := time.Now(), cpuTime()
		err = c.AddAll(context.Background(), dirs, func(dir string, _ *Run, err error) {
			if err != nil {
				b.Fatal(err)
			}
		})
		if err != nil {
			b.Fatal(err)
		}
		took, cpu := time.Since(start), cpuTime()-cpu0
		c.Close()
		b.ReportMetric(float64(took.Milliseconds()), "ms/1000folders")
		b.ReportMetric(float64(cpu.Milliseconds()), "cpu-ms/1000folders")
		// The machine is shared (the wall time swings with its load):
		// the CPU time is what the indexing costs.
		if cpu > 30*time.Second {
			b.Fatalf("1,000 folders indexed with %v of CPU (%v wall), want under 30 s", cpu, took)
		}
	}
}

// manyRuns is a catalog of n runs loaded in one transaction, each run of
// two phases of one operation with every figure, three labels and a
// fingerprint, one run an hour; made once and kept in the temporary
// folder, as loading it takes longer than the queries.
func manyRuns(b *testing.B, n int) string {
	b.Helper()
	path := filepath.Join(os.TempDir(), fmt.Sprintf("storbench-bench-%d-v%d.db", n, SchemaVersion))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	tmp := path + ".loading"
	os.Remove(tmp)
	c, err := Open(context.Background(), tmp)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	recs := make([]*Record, 0, 1000)
	flush := func() {
		if err := c.putMany(context.Background(), recs); err != nil {
			b.Fatal(err)
		}
		recs = recs[:0]
	}
	for i := range n {
		g := genRun{i: i, start: t0.Add(time.Duration(i) * time.Hour)}
		r := Run{RunHead: model.RunHead{RunID: g.runID(), Name: "nightly", Status: "completed", StartedAt: g.start, EndedAt: g.start.Add(time.Minute)}, Finished: true,
			Storbench: "v1.2.3", Fio: "fio-3.36", Command: []string{"storbench", "run"}, Path: "/results/" + g.runID(),
			Labels: map[string]string{"tuning": []string{"default", "tuned"}[i%2], "raid": []string{"6", "jbod"}[i%3%2], "cycle": fmt.Sprint(i / 1000)},
			Kernel: "6.1.0", FSType: []string{"xfs", "ext4", "gpfs"}[i%3], MountOptions: "rw,noatime", Devices: "Test NVMe 1TB", Hosts: 1 + i%8}
		var figs []Figure
		for _, p := range []struct{ phase, op string }{{"seq-read", "read"}, {"rand-write", "write"}} {
			for _, f := range CheckedFigures {
				figs = append(figs, Figure{Phase: p.phase, Op: p.op, Name: f, Value: 1e6 * (1 + 0.02*rng.NormFloat64())})
			}
		}
		recs = append(recs, &Record{Run: r, Figures: figs})
		if len(recs) == cap(recs) {
			flush()
		}
	}
	flush()
	c.Close()
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	os.Remove(tmp + "-wal")
	os.Remove(tmp + "-shm")
	return path
}

// BenchmarkQueries100k answers the queries `runs` and `trend` make over a
// catalog of 100,000 runs; the issue asks for under 200 ms each.
func BenchmarkQueries100k(b *testing.B) {
	path := manyRuns(b, 100000)
	c, err := Open(context.Background(), path)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	fig, _ := ParseFigure("seq-read/read/bw")
	now := t0.Add(100000 * time.Hour)
	for _, tc := range []struct {
		name  string
		terms []string
		trend bool
	}{
		{"runs/newest-50", []string{"last=50"}, false},
		{"runs/label+fs-newest-50", []string{"label=tuning=tuned,fs=xfs,last=50"}, false},
		{"runs/fingerprint-since-60d", []string{"fs=ext4,mount=noatime,since=60d"}, false},
		{"runs/label-one-cycle", []string{"label=cycle=42,label=raid=6"}, false},
		{"trend/by-tuning-since-90d", []string{"since=90d"}, true},
		{"trend/label-last-1000", []string{"label=raid=jbod,last=1000"}, true},
		{"trend/all-100k", nil, true},
	} {
		q, err := ParseQuery(tc.terms, now)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(tc.name, func(b *testing.B) {
			var n int
			cpu0 := cpuTime()
			for b.Loop() {
				if tc.trend {
					pts, err := c.Trend(context.Background(), q, fig, "tuning")
					if err != nil {
						b.Fatal(err)
					}
					n = len(pts)
				} else {
					runs, err := c.Runs(context.Background(), q)
					if err != nil {
						b.Fatal(err)
					}
					n = len(runs)
				}
			}
			b.ReportMetric(float64(n), "rows")
			// The machine is shared: CPU time per query tells what wall
			// time cannot under load.
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// cpuTime is the process's CPU time so far, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
