package fio

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/testutil"
)

// storbench starved while fio runs: its first status of fio's takes it
// 15 s to take in (as a machine at load 55 made it slow). fio's jobs end
// meanwhile and each must take fio's statistics lock, which fio's status
// thread holds while it writes a status. Before, fio wrote its statuses
// every second into a pipe of 64 KiB that storbench did not read: a
// status that did not fit held the lock until storbench read again, the
// ending jobs gave up after 5,000 tries ("fio seems to be stuck grabbing
// stat_sem, forcibly exiting", err=35) and the phase failed. Now the pipe
// holds 1 MiB: the phase completes with every job's figures.
func TestStarvedReaderLeavesFiosLockFree(t *testing.T) {
	if _, err := FindFio(""); err != nil {
		t.Skip(err)
	}
	var once sync.Once
	statusTaken = func() { once.Do(func() { time.Sleep(15 * time.Second) }) }
	defer func() { statusTaken = func() {} }()
	dir := t.TempDir()
	// Eight jobs reported apart: every status is several pipes' worth.
	text := "[global]\nioengine=psync\nrw=write\nbs=4k\nsize=1m\ntime_based=1\nruntime=2\nnumjobs=8\nfilename_format=$jobnum\n[w]\n"
	b, _ := json.Marshal(Params{Dir: dir, Job: Job{Name: "w", Text: text}})
	p, err := Engine{}.Prepare(testutil.Ctx(t, testutil.Bound), engine.Env{Host: "h", RunID: "starved"}, engine.Phase{Name: "w", Engine: "fio", Params: b})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Cleanup(context.Background())
	res, err := p.Run(testutil.Ctx(t, testutil.Bound), time.Now(), nil)
	if err != nil {
		t.Fatalf("the phase failed: %v", err)
	}
	if strings.Contains(string(res.Raw["fio.stderr"]), "stat_sem") {
		t.Errorf("fio said: %s", res.Raw["fio.stderr"])
	}
	out, err := ParseOutput(res.Raw["fio.json"])
	if err != nil {
		t.Fatal(err)
	}
	wrote := 0
	for _, j := range out.Jobs {
		if j.Error == 0 && j.Write.TotalIOs > 0 {
			wrote++
		}
	}
	if len(out.Jobs) != 8 || wrote != 8 {
		t.Errorf("%d of fio's %d jobs wrote without an error; want all 8", wrote, len(out.Jobs))
	}
}

// storbench starved throughout a real fio run: every status takes it
// 1.2 s to take in, so it reads each later than the one before and
// fio's final output seconds after fio's end (issue 37). The series is
// still fio's: its intervals end at fio's own times, the last no later than fio's
// end, none after the job's window, and together they hold the job's
// writes. Before, each interval ended when storbench read its status:
// the last ones lay after the job's window, where the report drew a
// second of 0 ops/s.
func TestStarvedReaderSeriesAtFiosTimes(t *testing.T) {
	if _, err := FindFio(""); err != nil {
		t.Skip(err)
	}
	statusTaken = func() { time.Sleep(1200 * time.Millisecond) }
	defer func() { statusTaken = func() {} }()
	text := "[global]\nioengine=psync\nrw=write\nbs=64k\nsize=8m\nrate=4m\ntime_based=1\nruntime=4\n[w]\n"
	b, _ := json.Marshal(Params{Dir: t.TempDir(), Job: Job{Name: "w", Text: text}})
	p, err := Engine{}.Prepare(testutil.Ctx(t, testutil.Bound), engine.Env{Host: "h", RunID: "starved-series"}, engine.Phase{Name: "w", Engine: "fio", Params: b})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Cleanup(context.Background())
	res, err := p.Run(testutil.Ctx(t, testutil.Bound), time.Now(), nil)
	if err != nil {
		t.Fatalf("the phase failed: %v", err)
	}
	if len(res.Ops) != 1 || len(res.Series) < 3 {
		t.Fatalf("operations %+v, series %+v: want one operation over several intervals", res.Ops, res.Series)
	}
	op := res.Ops[0]
	var n uint64
	for _, s := range res.Series {
		n += s.Ops
		// fio's stamps are in ms; the window ends at fio's end or sooner
		// (its jobs' start plus their runtime).
		if s.StartNs >= op.EndNs {
			t.Errorf("%d writes in [%.3f, %.3f) s, after the job's window ended at %.3f s", s.Ops,
				float64(s.StartNs-op.StartNs)/1e9, float64(s.EndNs-op.StartNs)/1e9, float64(op.EndNs-op.StartNs)/1e9)
		}
	}
	out, err := ParseOutput(res.Raw["fio.json"])
	if err != nil {
		t.Fatal(err)
	}
	// The last interval ends at the last status that brought writes: at
	// fio's end, or before it when fio took a while to exit after its
	// last write (0.7 s once, under make test's load), never after.
	if last := res.Series[len(res.Series)-1].EndNs; n != op.Ops || last > out.TimestampMs*int64(time.Millisecond) {
		t.Errorf("the series holds %d writes and ends %.3f s after fio's end; fio wrote %d", n, float64(last)/1e9-float64(out.TimestampMs)/1e3, op.Ops)
	}
}
