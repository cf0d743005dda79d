package fio

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/testutil"
)

// fio's per-second status output (cumulative json+ bins) becomes a
// histogram per interval for each operation, named as the phase's
// operations are, and adding up to them: here two job groups, so the
// operations are "<job> read" and "<job> write". The jobs run 5 s for at
// least 2 intervals: beside a CPU hog fio's status thread once printed
// only one status in a 3-s run.
func TestLatencyPerSecond(t *testing.T) {
	job := `[global]
ioengine=psync
bs=4k
size=4m
time_based=1
runtime=5

[a]
rw=randread

[b]
rw=randwrite
`
	pr, ctx := preparedJob(t, "lat", job)
	res, err := pr.Run(ctx, time.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Ops) != 2 || res.Ops[0].Op != "a read" || res.Ops[1].Op != "b write" {
		t.Fatalf("operations %+v", res.Ops)
	}
	testutil.CheckLatSeconds(t, res, 2)
}

// An operation is named by its section, never by how many jobs run it:
// one section run by 1 job and by 3 jobs is "read" both times, in the
// phase's figures and in its per-second series, so the steps of a
// `--scale jobs=` and two runs with other numjobs name the same operation
// alike (a scale once showed "read" at jobs=1 and "randread read" after).
func TestOpNamesIgnoreNumjobs(t *testing.T) {
	bin, err := FindFio("")
	if err != nil {
		t.Skip(err)
	}
	for _, n := range []int{1, 3} {
		job := fmt.Sprintf("[global]\nioengine=psync\nbs=4k\nsize=1m\ntime_based=1\nruntime=2\n\n[randread]\nrw=randread\nnumjobs=%d\n", n)
		ctx := testutil.Ctx(t, testutil.Bound)
		pr, err := Engine{}.Prepare(ctx, engine.Env{Host: "h", RunID: "names", Tools: engine.Tools{"fio": bin}}, fioPhase(t, t.TempDir(), "names", job, Overrides{}))
		if err != nil {
			t.Fatal(err)
		}
		res, err := pr.Run(ctx, time.Now(), nil)
		pr.Cleanup(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Ops) != 1 || res.Ops[0].Op != "read" {
			t.Errorf("numjobs=%d: operations %v, want one named \"read\"", n, opNames(res.Ops))
		}
		for _, s := range res.Series {
			if s.Op != "read" {
				t.Errorf("numjobs=%d: a second of the series is %q, want \"read\"", n, s.Op)
				break
			}
		}
	}
}

// preparedJob is job (a job file's text) prepared as fio phase name, on
// host "h" in a directory of its own with the fio found here (t skips
// without one), cleaned up when t ends; ctx bounds what t runs of it.
func preparedJob(t *testing.T, name, job string) (pr *prepared, ctx context.Context) {
	t.Helper()
	bin, err := FindFio("")
	if err != nil {
		t.Skip(err)
	}
	ctx = testutil.Ctx(t, testutil.Bound)
	p, err := Engine{}.Prepare(ctx, engine.Env{Host: "h", RunID: name, Tools: engine.Tools{"fio": bin}}, fioPhase(t, t.TempDir(), name, job, Overrides{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Cleanup(ctx) })
	return p.(*prepared), ctx
}

// opNames are the names of ops, in order.
func opNames(ops []record.OpStats) []string {
	var out []string
	for _, o := range ops {
		out = append(out, o.Op)
	}
	return out
}
