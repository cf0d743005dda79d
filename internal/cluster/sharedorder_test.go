package cluster

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
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

// stageOf is the stage of srv's session ("" without one).
func stageOf(srv *Server) string {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.sess == nil {
		return ""
	}
	return srv.sess.stage
}

// The first host's agent told to stop mid-phase (SIGTERM) cleans up on
// its own, while the other hosts go on with the phase: it leaves the
// shared file, which a host whose fio opens it late still has to open,
// to the run-level cleanup. Removing it, as the controller's cleanup
// after every host's run does, failed h1 with "open(.../shared/fio/one):
// no such file or directory".
func TestStoppedFirstHostLeavesTheSharedFile(t *testing.T) {
	if _, err := fio.FindFio(""); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	text := "[global]\nioengine=psync\nbs=4k\nrate=256k\nfilename=one\noffset=(${STORBENCH_HOST_INDEX}*1048576)\nsize=1m\ntime_based=1\nruntime=3\n[w]\nrw=write\n"
	b, err := json.Marshal(fio.Params{Dir: dir, Shared: true, Job: fio.Job{Name: "w", Text: text}})
	if err != nil {
		t.Fatal(err)
	}
	p := engine.Phase{Name: "w", Engine: model.EngineFio, Params: b}
	first, second := startAgent(t, "h0", nil), startAgent(t, "h1", nil)
	c := newController(remoteFor(first, "h0"), lateRun{remoteFor(second, "h1"), 2 * time.Second})
	ctx := testutil.Ctx(t, testutil.Bound)
	if _, err := c.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	stopped := make(chan error, 1)
	go func() {
		for stageOf(first.srv) != "run" {
			if ctx.Err() != nil {
				stopped <- ctx.Err()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(300 * time.Millisecond)
		stopped <- first.srv.Stop(ctx, "terminated signal received")
	}()
	out, err := c.RunPhase(ctx, "r", false, p)
	if serr := testutil.Recv(t, stopped, testutil.Bound, "h0's stop"); serr != nil {
		t.Fatalf("stop: %v", serr)
	}
	if err != nil {
		t.Fatalf("the phase failed: %v", err)
	}
	if len(out.Stopped) != 1 || out.Stopped[0] != "h0" {
		t.Fatalf("stopped %v, want h0", out.Stopped)
	}
	for _, r := range out.Results {
		if r.Host != "h1" {
			continue
		}
		if r.Err != "" || len(r.Ops) == 0 || r.Ops[0].Bytes == 0 {
			t.Errorf("h1, whose fio began after h0 stopped: %+v", r)
		}
	}
	if _, err := os.Stat(filepath.Join(engine.SharedArea(dir, "r"), "fio", "one")); err != nil {
		t.Errorf("the shared file after the phase, left to the run-level cleanup: %v", err)
	}
}
