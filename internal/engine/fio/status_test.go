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
