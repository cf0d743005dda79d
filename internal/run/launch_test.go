package run

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/testutil"
)

// endingLauncher starts one agent that answers nothing (a listener that
// accepts and stays silent), and its agents end on their own when the
// test closes ended, as an mpiexec job whose rank was killed does.
type endingLauncher struct {
	addr  string
	ended chan struct{}
}

func (l *endingLauncher) Flag() string { return "--launcher fake" }
func (l *endingLauncher) Planned() int { return 1 }
func (l *endingLauncher) Start(context.Context, cluster.Launch) (cluster.Started, error) {
	return endingStarted{l}, nil
}

type endingStarted struct{ l *endingLauncher }

var (
	_ cluster.Started = endingStarted{}
	_ cluster.Ender   = endingStarted{}
)

func (s endingStarted) Agents() []*cluster.RemoteAgent {
	return []*cluster.RemoteAgent{{Addr: s.l.addr, Host: "rank0", Token: "t"}}
}
func (endingStarted) Failed() []string { return nil }
func (endingStarted) Stop() []string   { return nil }
func (s endingStarted) Ended() (<-chan struct{}, string) {
	return s.l.ended, "the fake job running the agents ended (a rank was killed)"
}

// A launcher whose agents end on their own before the first phase (the
// controller still asking its agents who they are) stops the run as
// interrupted, saying what ended it, not "interrupted before anything
// ran": nobody sent a signal (issue 37: an mpiexec run said so after a
// rank had gone). It failed so before the message carried the cause.
func TestLauncherEndedBeforeTheRunSaysSo(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	asked := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			asked <- c // held open, never answered
		}
	}()
	l := &endingLauncher{addr: ln.Addr().String(), ended: make(chan struct{})}
	r, sink, root := runner(t)
	p := Plan{Name: "ended", ResultsRoot: root, Phases: []engine.Phase{fakePhaseOf(t, "p1", fakeParams{Ops: 10})}}
	p.Agents.Launcher = l
	done := make(chan error, 1)
	go func() {
		_, err := r.Run(t.Context(), p)
		done <- err
	}()
	c := testutil.Recv(t, asked, testutil.Bound, "the controller asking its agent who it is")
	defer c.Close()
	close(l.ended)
	err = testutil.Recv(t, done, testutil.Bound, "the run to end once its agents ended")
	endedBeforeTheRun(t, err, root, sink)
}

// endedBeforeTheRun checks a run that its launcher's end stopped before
// its first phase: exit 130, the launcher's words, neither an interrupt
// nor an unreachable agent named, no results folder.
func endedBeforeTheRun(t *testing.T, err error, root string, sink *recordingSink) {
	t.Helper()
	var re *Error
	if !errors.As(err, &re) || re.Code != Interrupted {
		t.Fatalf("run: %v (%T), want exit %d", err, err, Interrupted)
	}
	msg := err.Error()
	if !strings.Contains(msg, "the fake job running the agents ended (a rank was killed)") || strings.Contains(msg, "interrupted before anything ran") || strings.Contains(msg, "refused") {
		t.Errorf("run: %q, want the launcher's end named, not an interrupt nor an agent refused", msg)
	}
	if f := folders(t, root); len(f) != 0 {
		t.Errorf("results folders %v: nothing ran\n%v", f, sink.events)
	}
}

// A launcher's agent that died with its job refuses connections before
// the launcher sees the job end: the run then says the launcher's end
// (exit 130), not "agents: ... connection refused" (exit 2, bad input),
// which sent its user to check the host list (f37's reading of an mpiexec
// run). Here the agent's port refuses and the job ends a little later.
func TestAgentRefusedAsItsLauncherEndsSaysSo(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens: connections are refused
	l := &endingLauncher{addr: addr, ended: make(chan struct{})}
	r, sink, root := runner(t)
	p := Plan{Name: "refused", ResultsRoot: root, Phases: []engine.Phase{fakePhaseOf(t, "p1", fakeParams{Ops: 10})}}
	p.Agents.Launcher = l
	go func() {
		time.Sleep(300 * time.Millisecond)
		close(l.ended)
	}()
	_, err = r.Run(t.Context(), p)
	endedBeforeTheRun(t, err, root, sink)
}
