package md

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
)

// fakeBarrier stands in for the hosts' barrier (internal/cluster's, tested
// there with real agents) when md runs alone in a test: it releases every
// arrival at once with a start lead ahead, remembers the names and starts,
// and fails at the barrier named failAt.
type fakeBarrier struct {
	lead   time.Duration
	failAt string

	mu     sync.Mutex
	names  []string
	starts []time.Time
}

func (b *fakeBarrier) Wait(ctx context.Context, name string, data []byte) (engine.Release, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.names = append(b.names, name)
	if name == b.failAt {
		return engine.Release{}, errors.New("the controller is gone")
	}
	st := time.Now().Add(b.lead)
	b.starts = append(b.starts, st)
	return engine.Release{Start: st, Hosts: []engine.Arrival{{Host: "h1", Data: data}, {Host: "h2", Left: true}}}, nil
}

// With a barrier across hosts, md meets it once to number the workers of
// all hosts, then before every operation of every iteration, in mdtest's
// order, and each iteration's window starts at the barrier's common start
// exactly, not when this host happened to begin. After each tree operation
// the hosts meet once more to bring their ends (the first host reports the
// one tree over all hosts' time).
func TestBarrierBeforeEveryStage(t *testing.T) {
	b := &fakeBarrier{lead: 5 * time.Millisecond}
	res, err := runPhase(t, map[string]any{"dir": shmDir(t), "items": 50, "workers": 2, "iterations": 2, "unique_dir": true},
		engine.Env{Hosts: 2, Barrier: b})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ranks"}
	for _, it := range []string{"0", "1"} {
		for _, o := range res.Ops {
			want = append(want, it+"/"+o.Op)
			if strings.HasPrefix(o.Op, "tree-") {
				want = append(want, it+"/"+o.Op+"-end")
			}
		}
	}
	if strings.Join(b.names, " ") != strings.Join(want, " ") {
		t.Fatalf("barriers %v, want %v", b.names, want)
	}
	for i, name := range b.names[1:] {
		i++
		it, opName, _ := strings.Cut(name, "/")
		if strings.HasSuffix(opName, "-end") {
			continue
		}
		o := op(t, res, opName)
		x := o.Iterations[map[string]int{"0": 0, "1": 1}[it]]
		if x.StartNs != b.starts[i].UnixNano() {
			t.Errorf("%s starts %s after the common start", name, time.Duration(x.StartNs-b.starts[i].UnixNano()))
		}
		if x.EndNs <= x.StartNs {
			t.Errorf("%s: window %d..%d", name, x.StartNs, x.EndNs)
		}
	}
	if res.Meta["barrier_late_max_ns"] == "" {
		t.Error("no barrier lateness in the result's meta")
	}
}

// A barrier that can no longer meet (the controller is gone) ends the phase
// with an error naming the operation, and what was measured so far is kept.
func TestBarrierFailureStopsThePhase(t *testing.T) {
	b := &fakeBarrier{lead: time.Millisecond, failAt: "0/file-stat"}
	res, err := runPhase(t, map[string]any{"dir": shmDir(t), "items": 20, "workers": 2, "files_only": true},
		engine.Env{Hosts: 2, Barrier: b})
	if err == nil || !strings.Contains(err.Error(), "file-stat") || !strings.Contains(err.Error(), "the controller is gone") {
		t.Fatalf("Run returned %v", err)
	}
	if res == nil || op(t, res, "file-create").Ops != 40 {
		t.Fatalf("the stages before the failed barrier are not kept: %+v", res)
	}
}

// The hot loop allocates nothing with a barrier either: the barrier is met
// once per stage, outside the per-item path.
func TestNoAllocationPerItemWithBarrier(t *testing.T) {
	mallocs := func(items int) uint64 {
		dir := shmDir(t)
		var a, b runtime.MemStats
		runtime.ReadMemStats(&a)
		if _, err := runPhase(t, map[string]any{"dir": dir, "items": items, "workers": 1, "files_only": true},
			engine.Env{Hosts: 2, Barrier: &fakeBarrier{lead: time.Millisecond}}); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&b)
		return b.Mallocs - a.Mallocs
	}
	mallocs(100) // warm up
	small, big := mallocs(1000), mallocs(20_000)
	if big > small+500 {
		t.Errorf("20000 items took %d allocations, 1000 items %d: the hot loop allocates", big, small)
	}
}
