package cluster

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/testutil"
)

// One knob sets every heartbeat timeout: a controller whose
// RemoteAgent.HeartbeatTimeout is 8 s keeps an agent (with no timeout of
// its own set) through 4.5 s without heartbeats, and waits 10 s on a
// silent stream. Before, the agent kept its own 3 s and stopped the phase,
// whatever the controller was set to.
func TestOneHeartbeatKnob(t *testing.T) {
	t.Parallel() // it mostly waits, on in-process agents (docs/development.md)
	ta := startAgent(t, "a", nil)
	a := remoteFor(ta, "a")
	a.HeartbeatTimeout = 8 * time.Second
	t.Cleanup(a.Close)
	c := &Controller{Agents: []Agent{a}, Engines: testEngines}
	var once sync.Once
	paused := make(chan struct{})
	c.Progress = func(Progress) {
		once.Do(func() {
			go func() {
				defer close(paused)
				a.stopHeartbeats()
				time.Sleep(4500 * time.Millisecond)
				a.startHeartbeats()
			}()
		})
	}
	out, err := c.RunPhase(context.Background(), "r", false, tickPhaseOf(t, 7000, 500, 10))
	if err != nil {
		t.Fatal(err)
	}
	<-paused
	if len(out.Results) != 1 || len(out.Lost) > 0 {
		t.Fatalf("results %d, lost %v: %v", len(out.Results), out.Lost, out.Errors)
	}
	for len(ta.logs) > 0 {
		if l := <-ta.logs; strings.Contains(l, "stopping the phase") {
			t.Errorf("the agent stopped its phase: %s", l)
		}
	}
	if a.Silence != 10*time.Second {
		t.Errorf("the controller waits %s on a silent stream, want 10s", a.Silence)
	}
}

// The lost message quotes the timeout both sides use, and adds the
// controller's pause only when it was past that timeout. Before, it said
// 3 s whatever the agents were told, and called a 5 s pause the cause
// when agents waited 30 s.
func TestLostMessageQuotesTheKnob(t *testing.T) {
	a := &RemoteAgent{Addr: "127.0.0.1:1", Host: "a", HeartbeatTimeout: 30 * time.Second}
	a.init()
	lost := errors.New("agent lost: 127.0.0.1:1 said nothing")
	a.lastBeat = time.Now().Add(-5 * time.Second)
	if got := a.whyLost(lost).Error(); got != lost.Error() {
		t.Errorf("a 5s pause under a 30s timeout was given as the cause: %s", got)
	}
	a.lastBeat = time.Now().Add(-31 * time.Second)
	if got := a.whyLost(lost).Error(); !strings.Contains(got, "no heartbeat for 31s") || !strings.Contains(got, "after 30s without one") {
		t.Errorf("lost message: %s", got)
	}
}

// The agent's side: its message says how long it waited, the timeout it
// used, and how late its own timer ran in that time (not counted) when
// that was a tick or more.
func TestAgentLostMessageSaysItsOwnLateness(t *testing.T) {
	got := lostController(4*time.Second, 3*time.Second, 50*time.Millisecond, 300*time.Millisecond).Error()
	if want := "no word from the controller for 4s (this agent waits 3s)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	got = lostController(9*time.Second, 3*time.Second, 6*time.Second, 300*time.Millisecond).Error()
	if !strings.Contains(got, "own timer ran 6s late in that time") || !strings.Contains(got, "not counted") {
		t.Errorf("a starved agent's message: %q", got)
	}
}

// A heartbeat whose answer is slow (here 1.8 s, past the 1.5 s timeout)
// holds neither the next beat nor the controller's measure of its own
// pauses: the agent hears a beat every second and keeps its phase, and a
// later lost message does not call this controller stopped or starved.
// Before, the loop waited for each answer: the agent heard a beat every
// 1.8 s and stopped, and the controller took the wait for a pause.
func TestSlowHeartbeatAnswerIsNoPause(t *testing.T) {
	srv := &Server{Agent: &LocalAgent{Host: "slow", Version: "test", Engines: testEngines, Tools: engine.Tools{"fio": "/nonexistent/fio"}}, Token: testToken}
	addr := startHandler(t, olderAgent(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		srv.ServeHTTP(w, r)
		if r.URL.Path == PathPrefix+"/heartbeat" {
			time.Sleep(1800 * time.Millisecond) // the beat counted, its answer late
		}
	})))
	a := &RemoteAgent{Addr: addr, Host: "slow", Token: testToken, Controller: "test-controller", HeartbeatTimeout: 1500 * time.Millisecond}
	t.Cleanup(a.Close)
	c := &Controller{Agents: []Agent{a}, Engines: testEngines}
	out, err := c.RunPhase(context.Background(), "r", false, tickPhaseOf(t, 5000, 500, 10))
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != 1 || len(out.Lost) > 0 {
		t.Fatalf("results %d, lost %v: %v", len(out.Results), out.Lost, out.Errors)
	}
	a.mu.Lock()
	paused := a.paused
	a.mu.Unlock()
	if paused > a.HeartbeatTimeout {
		t.Errorf("the controller counted a pause of %s (its heartbeat timer was never held)", paused)
	}
}

// The knob sets how often heartbeats go too: with 30 s, every 5 s, not
// every second. 10,000 agents' heartbeats every second were more than a
// controller on a busy 2-core machine sent in time: agents waiting 30 s
// heard nothing for that long and stopped their phase. Before, an 8 s
// phase here took 8 or 9 heartbeats.
func TestHeartbeatsFollowTheKnob(t *testing.T) {
	t.Parallel() // it mostly waits, on in-process agents (docs/development.md)
	var beats atomic.Int32
	c := slowKnobController(t, func(*http.Request) bool { beats.Add(1); return true })
	start := time.Now()
	out, err := c.RunPhase(testutil.Ctx(t, testutil.Bound), "r", false, tickPhaseOf(t, 8000, 500, 10))
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != 1 {
		t.Fatalf("%d results", len(out.Results))
	}
	took := time.Since(start)
	n := beats.Load()
	if most := int32(took/(5*time.Second)) + 1; n < 1 || n > most {
		t.Errorf("%d heartbeats in %s with a 30 s timeout, want 1 to %d (one every 5 s)", n, took.Round(time.Millisecond), most)
	}
}

// A heartbeat's answer is awaited until the next beat is due, not two
// seconds: with the knob at 30 s a beat goes every 5 s, and one that the
// agent takes 3 s to read (a busy machine) still counts. Before, the
// controller gave up on it after 2 s, and a starved agent heard none.
func TestASlowBeatIsAwaitedUntilTheNext(t *testing.T) {
	t.Parallel() // it mostly waits, on in-process agents (docs/development.md)
	var counted atomic.Int32
	c := slowKnobController(t, func(r *http.Request) bool {
		// Read 3 s late: a beat the controller gave up on by then
		// never reached the agent.
		select {
		case <-time.After(3 * time.Second):
			counted.Add(1)
			return true
		case <-r.Context().Done():
			return false
		}
	})
	out, err := c.RunPhase(testutil.Ctx(t, testutil.Bound), "r", false, tickPhaseOf(t, 11000, 500, 10))
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != 1 {
		t.Fatalf("%d results", len(out.Results))
	}
	if n := counted.Load(); n < 1 {
		t.Errorf("no heartbeat read 3 s late reached the agent in a phase of %s (one every 5 s)", out.End.Sub(out.Start).Round(time.Second))
	}
}

// slowKnobController is a controller of one agent whose heartbeat timeout
// is 30 s, an older one that takes a request a beat; onBeat sees each heartbeat before the agent does, and the beat
// reaches the agent only when it returns true.
func slowKnobController(t *testing.T, onBeat func(*http.Request) bool) *Controller {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ta := serveAgent(t, "a", testEngines, ln, func(srv *Server) http.Handler {
		return olderAgent(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == PathPrefix+"/heartbeat" && !onBeat(r) {
				return
			}
			srv.ServeHTTP(w, r)
		}))
	})
	a := remoteFor(ta, "a")
	a.HeartbeatTimeout = 30 * time.Second
	t.Cleanup(a.Close)
	return &Controller{Agents: []Agent{a}, Engines: testEngines}
}

// olderAgent is an agent of an older storbench, which knows no
// /v1/heartbeats: the controller sends it a request a beat.
func olderAgent(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == PathPrefix+"/heartbeats" {
			r.URL.Path = PathPrefix + "/heartbeats-unknown"
		}
		h.ServeHTTP(w, r)
	})
}

// The beats of a phase go as the bytes of one request: a phase of 9 s,
// a beat every 2 s, reaches the agent as one /v1/heartbeats request with
// a byte a beat, and no request a beat. Before, each beat was a request
// of its own (a stream, headers both ways, an answer): 19% of the CPU of
// a controller driving 3,000 agents, and as much again on the agents.
func TestHeartbeatsAreOneRequestAPhase(t *testing.T) {
	t.Parallel() // it mostly waits, on in-process agents (docs/development.md)
	var streams, single, bytes atomic.Int32
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ta := serveAgent(t, "a", testEngines, ln, func(srv *Server) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case PathPrefix + "/heartbeat":
				single.Add(1)
			case PathPrefix + "/heartbeats":
				streams.Add(1)
				r.Body = countedBody{r.Body, &bytes}
			}
			srv.ServeHTTP(w, r)
		})
	})
	a := remoteFor(ta, "a")
	a.HeartbeatTimeout = 12 * time.Second // a beat every 2 s
	t.Cleanup(a.Close)
	c := &Controller{Agents: []Agent{a}, Engines: testEngines}
	out, err := c.RunPhase(testutil.Ctx(t, testutil.Bound), "r", false, tickPhaseOf(t, 9000, 500, 10))
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != 1 || len(out.Lost) > 0 {
		t.Fatalf("results %d, lost %v: %v", len(out.Results), out.Lost, out.Errors)
	}
	if streams.Load() != 1 || single.Load() != 0 || bytes.Load() < 1 {
		t.Errorf("the agent got %d heartbeat streams holding %d beats and %d requests of one beat, want 1 stream, beats in it, no single requests",
			streams.Load(), bytes.Load(), single.Load())
	}
}

// countedBody counts the bytes read from a request's body.
type countedBody struct {
	io.ReadCloser
	n *atomic.Int32
}

func (b countedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int32(n))
	return n, err
}
