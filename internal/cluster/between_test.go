package cluster

import (
	"context"
	"net"
	"net/http"
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
func betweenStages(t *testing.T, start func(testing.TB, string) *testAgent, stage string, both bool, late func(Agent) Agent, runtime int) *Controller {
	dir := t.TempDir()
	first, second := start(t, "h0"), start(t, "h1")
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
	return c
}

// The first host's agent told to stop (SIGTERM) after its own run ended,
// before the controller's cleanup, while h1's run has not yet begun (h1
// starts 2 s late): no stream is open to ask on, so it asks on the
// heartbeats, hears h1 still runs the phase, and leaves the shared file
// to h1, which writes its part and removes it when the phase is cleaned
// up. Cleaning up as the first host would (on its own), h0 removed the
// shared file and h1's fio failed with "no such file or directory".
func TestStoppedAfterItsRunLeavesTheSharedFile(t *testing.T) {
	if _, err := fio.FindFio(""); err != nil {
		t.Skip(err)
	}
	betweenStages(t, startH2Agent, "ran", false, func(a Agent) Agent { return lateRun{a, 2 * time.Second} }, 1)
}

// As TestStoppedAfterItsRunLeavesTheSharedFile, with agents that speak
// only HTTP/1.1: the question goes with the answer to a heartbeat, each
// a request of its own.
func TestStoppedAfterItsRunAsksOverHTTP1(t *testing.T) {
	if _, err := fio.FindFio(""); err != nil {
		t.Skip(err)
	}
	c := betweenStages(t, startH1Agent, "ran", false, func(a Agent) Agent { return lateRun{a, 2 * time.Second} }, 1)
	if !c.Agents[0].(*RemoteAgent).old.Load() {
		t.Error("the controller spoke HTTP/2 with h0")
	}
}

func startH2Agent(t testing.TB, name string) *testAgent { return startAgent(t, name, nil) }

// startH1Agent is startAgent for an agent that speaks only HTTP/1.1.
func startH1Agent(t testing.TB, name string) *testAgent {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ta := &testAgent{ln: ln, addr: ln.Addr().String(), logs: make(chan string, 100)}
	ta.srv = &Server{Agent: &LocalAgent{Host: name, Version: "test", Engines: testEngines, NoClientLoad: noClientLoad}, Token: testToken, Logf: ta.logf}
	ta.hs = &http.Server{Handler: ta.srv}
	go func() { _ = ta.hs.Serve(resetOnPreface{ln}) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = ta.srv.Close(ctx)
		_ = ta.hs.Close()
	})
	return ta
}

// The first host's agent told to stop when it and h1 are prepared and
// neither run has begun (the controller hears of h1's preparation late):
// it asks on the heartbeats and leaves the shared file to h1, as after
// its run.
func TestStoppedWhilePreparedLeavesTheSharedFile(t *testing.T) {
	if _, err := fio.FindFio(""); err != nil {
		t.Skip(err)
	}
	betweenStages(t, startH2Agent, "prepared", true, func(a Agent) Agent { return latePrepared{lateRun{a, time.Second}} }, 1)
}
