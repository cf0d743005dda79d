package cluster

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/engine/fio"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/testutil"
)

// lateRun is an agent whose run begins late (a starved host): Run waits
// late before handing the phase to the agent, whose fio then opens its
// files after the common start, when the other hosts may have ended.
type lateRun struct {
	Agent
	late time.Duration
}

func (l lateRun) Run(ctx context.Context, startAt time.Time, live engine.LiveFunc) (*engine.HostResult, error) {
	select {
	case <-time.After(l.late):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return l.Agent.Run(ctx, startAt, live)
}

// CleanupAsFirst is the agent's (heirCleaner), if it has one.
func (l lateRun) CleanupAsFirst(ctx context.Context) error {
	if hc, ok := l.Agent.(heirCleaner); ok {
		return hc.CleanupAsFirst(ctx)
	}
	return l.Agent.Cleanup(ctx)
}

// Issue 37: the first host's cleanup removes a shared phase's file (the
// phase is the last to use it), and a host whose fio opens that file
// after the first host ended - here one whose run begins 1 s late -
// must still find it: the controller cleans up no host before every
// host's run ended. Cleaning up each host as its own run ends, h1's fio
// failed with "open(.../shared/fio/one): no such file or directory".
func TestSharedFileOutlivesALateHost(t *testing.T) {
	if _, err := fio.FindFio(""); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	// Each host writes its own 64 KiB of one shared file.
	text := "[global]\nioengine=psync\nbs=4k\nfilename=one\noffset=(${STORBENCH_HOST_INDEX}*65536)\nsize=65536\n[w]\nrw=write\n"
	b, err := json.Marshal(fio.Params{Dir: dir, Shared: true, Job: fio.Job{Name: "w", Text: text}})
	if err != nil {
		t.Fatal(err)
	}
	p := engine.Phase{Name: "w", Engine: model.EngineFio, Params: b}
	local := func(name string) *LocalAgent {
		return &LocalAgent{Host: name, Version: "test", Engines: testEngines, NoClientLoad: true}
	}
	c := newController(local("h0"), lateRun{local("h1"), time.Second})
	ctx := testutil.Ctx(t, testutil.Bound)
	if _, err := c.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	out, err := c.RunPhase(ctx, "r", false, p)
	if err != nil {
		t.Fatalf("the phase failed: %v", err)
	}
	if len(out.Results) != 2 {
		t.Fatalf("%d results, want one per host", len(out.Results))
	}
	for _, r := range out.Results {
		var wrote uint64
		for _, o := range r.Ops {
			if o.Op == "write" {
				wrote += o.Bytes
			}
		}
		if wrote != 65536 {
			t.Errorf("%s wrote %d bytes of the shared file, want 65536", r.Host, wrote)
		}
	}
}
