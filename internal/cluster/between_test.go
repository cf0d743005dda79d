package cluster

import (
	"context"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine/fio"
)

// stopAtStage stops srv as SIGTERM does once every server of all is in
// stage (srv's own session included), and says how the stop went.
func stopAtStage(ctx context.Context, srv *Server, stage string, all ...*Server) <-chan error {
	return stopAllAtStage(ctx, stage, []*Server{srv}, all...)[0]
}

// stopAllAtStage stops every server of stop at once, as SIGTERM does,
// once each of stop and all is in stage, and says how each stop went. One
// look decides for all: a stopped server leaves the stage, so a watcher
// of its own for each missed the moment when another stopped first.
func stopAllAtStage(ctx context.Context, stage string, stop []*Server, all ...*Server) []<-chan error {
	outs := make([]<-chan error, len(stop))
	chans := make([]chan error, len(stop))
	for i := range stop {
		chans[i] = make(chan error, 1)
		outs[i] = chans[i]
	}
	everyAt := func() bool {
		for _, o := range append(slices.Clone(stop), all...) {
			if stageOf(o) != stage {
				return false
			}
		}
		return true
	}
	go func() {
		for !everyAt() {
			if ctx.Err() != nil {
				for _, c := range chans {
					c <- ctx.Err()
				}
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
		for i, srv := range stop {
			go func() {
				err := srv.Stop(ctx, "terminated signal received")
				_ = srv.unpinAll()
				chans[i] <- err
			}()
		}
	}()
	return outs
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

// betweenStages runs a shared fio write on h0 and h1 (their agents as
// wrap wraps them, given the host's index), stops h0's agent once stage comes (both agents in it with both),
// and checks that h1 still wrote its part of the shared file and that
// nothing of the run is left.
func betweenStages(t *testing.T, start func(testing.TB, string) *testAgent, stage string, both bool, wrap func(int, Agent) Agent, runtime int) *Controller {
	t.Helper()
	run := stopDuringShared(t, start, wrap, runtime, "h0", func(ctx context.Context, srv, other *Server) <-chan error {
		var with []*Server
		if both {
			with = append(with, other)
		}
		return stopAtStage(ctx, srv, stage, with...)
	})
	var wrote bool
	for _, r := range run.out.Results {
		if r.Host == "h1" {
			wrote = r.Err == "" && len(r.Ops) > 0 && r.Ops[0].Bytes > 0
			if !wrote {
				t.Errorf("h1, whose fio began after h0 stopped: %+v", r)
			}
		}
	}
	if !wrote {
		t.Errorf("no result of h1 in %+v", run.out.Results)
	}
	run.nothingLeft(t, "")
	return run.c
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
	betweenStages(t, startH2Agent, "ran", false, onH1(func(a Agent) Agent { return lateRun{a, 2 * time.Second} }), 1)
}

// As TestStoppedAfterItsRunLeavesTheSharedFile, with agents that speak
// only HTTP/1.1: the question goes with the answer to a heartbeat, each
// a request of its own.
func TestStoppedAfterItsRunAsksOverHTTP1(t *testing.T) {
	if _, err := fio.FindFio(""); err != nil {
		t.Skip(err)
	}
	c := betweenStages(t, startH1Agent, "ran", false, onH1(func(a Agent) Agent { return lateRun{a, 2 * time.Second} }), 1)
	if !c.Agents[0].(*RemoteAgent).old.Load() {
		t.Error("the controller spoke HTTP/2 with h0")
	}
}

func startH2Agent(t testing.TB, name string) *testAgent { return startAgent(t, name, nil) }

// startH1Agent is startAgent for an agent that speaks only HTTP/1.1: its
// listener resets the connections that open with HTTP/2's preface
// before its server reads them.
func startH1Agent(t testing.TB, name string) *testAgent {
	t.Helper()
	return startAgentOn(t, name, nil, func(ln net.Listener) net.Listener { return resetOnPreface{ln} })
}

// The first host's agent told to stop when it and h1 are prepared and
// neither run has begun (the controller hears of h1's preparation late,
// and asks for each run a second after it heard of both): it asks on the
// heartbeats and leaves the shared file to h1, as after its run. With
// h0's run asked for at once, the two were prepared together only from
// h0's preparation to its run's request, which beside the hog came after
// h1's late preparation: a few milliseconds, which the stop's watcher
// missed, and it waited its 2-min bound.
func TestStoppedWhilePreparedLeavesTheSharedFile(t *testing.T) {
	if _, err := fio.FindFio(""); err != nil {
		t.Skip(err)
	}
	betweenStages(t, startH2Agent, "prepared", true, func(i int, a Agent) Agent {
		if i == 1 {
			return latePrepared{lateRun{a, time.Second}}
		}
		return settlingLateRun{lateRun{a, time.Second}}
	}, 1)
}

// settlingLateRun is a remote agent whose run request comes late, and
// whose controller still asks it what its own cleanup left (settler).
type settlingLateRun struct{ lateRun }

func (l settlingLateRun) Settle(ctx context.Context, runID string) ([]Removal, error) {
	return l.Agent.(settler).Settle(ctx, runID)
}

// lateCleanup is an agent whose cleanup the controller asks for late.
type lateCleanup struct {
	Agent
	late time.Duration
}

func (l lateCleanup) Cleanup(ctx context.Context) error {
	time.Sleep(l.late)
	return l.Agent.Cleanup(ctx)
}

// Every host's agent told to stop at once after every run ended, before
// the phase's cleanup (scancel as the phase ends): the first to ask hears
// it is the last and removes the shared file, the others their own files,
// and nothing of the run is left under DIR, though no agent is left for
// the run-level cleanup.
func TestEveryHostStoppedAfterTheRunsLeavesNothing(t *testing.T) {
	if _, err := fio.FindFio(""); err != nil {
		t.Skip(err)
	}
	run := pinnedHosts(t, 3, startH2Agent, func(_ int, a Agent) Agent { return lateCleanup{a, 2 * time.Second} })
	stops := stopAllAtStage(run.ctx, "ran", run.srvs)
	if _, err := run.c.RunPhase(run.ctx, "r", false, sharedWrite(t, run.dir, 1)); err != nil {
		t.Fatalf("the phase: %v", err)
	}
	awaitStops(t, stops)
	leftUnder(t, run.dir)
}

// Of hosts leaving a phase after every run ended, only the first hears it
// is the last (it removes what the hosts share; two removing one tree at
// once get in each other's way), and a host that left is never the heir,
// though its run ended without an error.
func TestOnlyTheFirstLeavingAfterTheRunsIsLast(t *testing.T) {
	h := newBarrierHub([]string{"h0", "h1", "h2"}, BarrierLead)
	h.shares = true
	if !h.goes(0) {
		t.Fatalf("h0, leaving while the others run, heard it was the last")
	}
	for _, host := range []string{"h1", "h2"} {
		if err := h.ended(host, nil); err != nil {
			t.Fatalf("%s's end: %v", host, err)
		}
	}
	h2 := newBarrierHub([]string{"h0", "h1", "h2"}, BarrierLead)
	h2.shares = true
	for _, host := range h2.hosts {
		_ = h2.ended(host, nil)
	}
	if h2.goes(1) {
		t.Errorf("h1, the first to leave after every run ended, heard others still run the phase")
	}
	if !h2.goes(0) || !h2.goes(2) {
		t.Errorf("a host leaving after h1 heard it was the last too")
	}
	agents := []Agent{&LocalAgent{Host: "h0"}, &LocalAgent{Host: "h1"}, &LocalAgent{Host: "h2"}}
	if heir := h.heir(agents, make([]error, 3)); heir != "h1" {
		t.Errorf("the heir is %q, want h1, the first host that did not leave", heir)
	}
}
