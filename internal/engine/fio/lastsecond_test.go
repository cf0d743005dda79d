package fio

import (
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/testutil"
)

// fio's main process held up after its jobs ended, as a starved machine
// holds it (here by SIGSTOP, for 3 s after both jobs ended): it reaps the
// jobs and prints its final output late, and the series' last interval
// still ends when the jobs ended, at their rate. Before, it ended at the
// final output's stamp and held the jobs' last operations over 3 s more,
// at about half their rate (make test: "point 6 of 7 is 0.23x the
// median", numjobs=2).
func TestLastSecondOfAJobHeldUp(t *testing.T) {
	job := `[global]
ioengine=psync
bs=4k
size=1m
time_based=1
runtime=4
rate_iops=50
numjobs=2

[w]
rw=randwrite
`
	r, ctx := preparedJob(t, "held", job)
	var wrote atomic.Bool
	type result struct {
		res *engine.HostResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := r.Run(ctx, time.Now(), func(s engine.Snapshot) {
			for _, c := range s.Ops {
				if c.Ops > 0 {
					wrote.Store(true)
				}
			}
		})
		done <- result{res, err}
	}()
	until(t, "fio's jobs writing", func() bool { return wrote.Load() && r.fioPid.Load() != 0 })
	main := int(r.fioPid.Load())
	jobs := childrenOf(main)
	if len(jobs) != 2 {
		t.Fatalf("fio's main process %d has children %v, want its 2 jobs", main, jobs)
	}
	_ = syscall.Kill(main, syscall.SIGSTOP)
	until(t, "fio's jobs ended", func() bool {
		for _, j := range jobs {
			if st, err := os.ReadFile("/proc/" + strconv.Itoa(j) + "/stat"); err == nil && !strings.Contains(string(st), ") Z ") {
				return false
			}
		}
		return true
	})
	time.Sleep(3 * time.Second)
	_ = syscall.Kill(main, syscall.SIGCONT)
	got := <-done
	if got.err != nil {
		t.Fatal(got.err)
	}
	res := got.res
	if len(res.Ops) != 1 || len(res.Series) < 2 {
		t.Fatalf("operations %+v, series %+v", res.Ops, res.Series)
	}
	op := res.Ops[0]
	rate := float64(op.Ops) / (float64(op.EndNs-op.StartNs) / 1e9)
	last := res.Series[len(res.Series)-1]
	lastRate := float64(last.Ops) / (float64(last.EndNs-last.StartNs) / 1e9)
	for _, s := range res.Series {
		t.Logf("%d writes in [%.3f, %.3f) s", s.Ops, float64(s.StartNs-op.StartNs)/1e9, float64(s.EndNs-op.StartNs)/1e9)
	}
	if lastRate < 0.75*rate || lastRate > 1.5*rate {
		t.Errorf("the last interval: %d writes at %.1f ops/s; the phase's rate was %.1f (%d writes over %.3f s)",
			last.Ops, lastRate, rate, op.Ops, float64(op.EndNs-op.StartNs)/1e9)
	}
}

// until polls cond every 10 ms until it holds, failing t after
// testutil.Bound, naming what it waited for.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(testutil.Bound); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, testutil.Bound)
		}
	}
}
