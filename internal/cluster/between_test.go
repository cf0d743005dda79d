package cluster

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/engine/fio"
	"github.com/storbench/storbench/internal/testutil"
)

// stopAtStage stops srv as SIGTERM does once every server of all is in
// stage (srv's own session included), and says how the stop went.
func stopAtStage(ctx context.Context, srv *Server, stage string, all ...*Server) <-chan error {
	stopped := make(chan error, 1)
	go func() {
		for {
			at := stageOf(srv) == stage
			for _, o := range all {
				at = at && stageOf(o) == stage
			}
			if at {
				break
			}
			if ctx.Err() != nil {
				stopped <- ctx.Err()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
		err := srv.Stop(ctx, "terminated signal received")
		_ = srv.unpinAll()
		stopped <- err
	}()
	return stopped
}

// latePrepared is an agent whose preparation the controller hears of
// late: the agent is prepared, and its run request comes late.
type latePrepared struct {
	lateRun
}

func (l latePrepared) Prepare(ctx context.Context, req Request) error {
	err := l.Agent.Prepare(ctx, req)
	select {
	case <-time.After(l.late):
	case <-ctx.Done():
	}
	return err
}

// betweenStages runs a shared fio write on h0 and h1 (h1 as late wraps
// it), stops h0's agent once stage comes (both agents in it with both),
// and checks that h1 still wrote its part of the shared file and that
// nothing of the run is left.
func betweenStages(t *testing.T, stage string, both bool, late func(Agent) Agent, runtime int) {
	if _, err := fio.FindFio(""); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	first, second := startAgent(t, "h0", nil), startAgent(t, "h1", nil)
	c := newController(remoteFor(first, "h0"), late(remoteFor(second, "h1")))
	ctx := testutil.Ctx(t, testutil.Bound)
	if _, err := c.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.PinArea(ctx, "r", dir); err != nil {
		t.Fatal(err)
	}
	var with []*Server
	if both {
		with = append(with, second.srv)
	}
	stopped := stopAtStage(ctx, first.srv, stage, with...)
	out, err := c.RunPhase(ctx, "r", false, sharedWrite(t, dir, runtime))
	if serr := testutil.Recv(t, stopped, testutil.Bound, "h0's stop"); serr != nil {
		t.Fatalf("stop: %v", serr)
	}
	if err != nil {
		t.Fatalf("the phase failed: %v", err)
	}
	var wrote bool
	for _, r := range out.Results {
		if r.Host == "h1" {
			wrote = r.Err == "" && len(r.Ops) > 0 && r.Ops[0].Bytes > 0
			if !wrote {
				t.Errorf("h1, whose fio began after h0 stopped: %+v", r)
			}
		}
	}
	if !wrote {
		t.Errorf("no result of h1 in %+v", out.Results)
	}
	if len(out.Leftovers) > 0 {
		t.Errorf("the phase left %v", out.Leftovers)
	}
	if _, err := os.Stat(filepath.Join(engine.SharedArea(dir, "r"), "fio")); !os.IsNotExist(err) {
		t.Errorf("the shared file after the phase: %v, want it gone", err)
	}
	if left := c.RemoveShared(ctx, "r", dir); len(left) > 0 {
		t.Errorf("the run-level cleanup left %v", left)
	}
	leftUnder(t, dir)
}

// The first host's agent told to stop (SIGTERM) after its own run ended,
// before the controller's cleanup, while h1's run has not yet begun (h1
// starts 2 s late): no stream is open to ask on, so it asks on the
// heartbeats, hears h1 still runs the phase, and leaves the shared file
// to h1, which writes its part and removes it when the phase is cleaned
// up. Cleaning up as the first host would (on its own), h0 removed the
// shared file and h1's fio failed with "no such file or directory".
func TestStoppedAfterItsRunLeavesTheSharedFile(t *testing.T) {
	betweenStages(t, "ran", false, func(a Agent) Agent { return lateRun{a, 2 * time.Second} }, 1)
}

// The first host's agent told to stop when it and h1 are prepared and
// neither run has begun (the controller hears of h1's preparation late):
// it asks on the heartbeats and leaves the shared file to h1, as after
// its run.
func TestStoppedWhilePreparedLeavesTheSharedFile(t *testing.T) {
	betweenStages(t, "prepared", true, func(a Agent) Agent { return latePrepared{lateRun{a, time.Second}} }, 1)
}
