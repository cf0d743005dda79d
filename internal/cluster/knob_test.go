package cluster

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// One knob sets every heartbeat timeout: a controller whose
// RemoteAgent.HeartbeatTimeout is 8 s keeps an agent (with no timeout of
// its own set) through 4.5 s without heartbeats, and waits 10 s on a
// silent stream. Before, the agent kept its own 3 s and stopped the phase,
// whatever the controller was set to.
func TestOneHeartbeatKnob(t *testing.T) {
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
// used, and how late its own timer ran when that was long.
func TestAgentLostMessageSaysItsOwnLateness(t *testing.T) {
	got := lostController(4*time.Second, 3*time.Second, 50*time.Millisecond).Error()
	if want := "no word from the controller for 4s (this agent waits 3s)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	got = lostController(9*time.Second, 3*time.Second, 6*time.Second).Error()
	if !strings.Contains(got, "own timer ran up to 6s late") {
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
	srv := &Server{Agent: &LocalAgent{Host: "slow", Version: "test", Engines: testEngines, FioBin: "/nonexistent/fio"}, Token: testToken}
	addr := startHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		srv.ServeHTTP(w, r)
		if r.URL.Path == PathPrefix+"/heartbeat" {
			time.Sleep(1800 * time.Millisecond) // the beat counted, its answer late
		}
	}))
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
