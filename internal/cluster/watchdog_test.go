package cluster

import (
	"strings"
	"testing"
	"time"
)

// watchLife drives a beatWatch of timeout as the watchdog does, its ticker
// due every tenth of timeout, up to end: within a stall [from, to) the
// agent does not run, so a tick due then comes at the stall's end (and the
// next is due at the next tenth after it); the controller's beats leave at
// sent, and one that arrives during a stall is taken only handlerLag after
// the stall's end (its handler waits longer than the watchdog). It returns
// when and why the watch lost the controller, or 0 and nil.
func watchLife(timeout time.Duration, stalls [][2]time.Duration, sent []time.Duration, handlerLag, end time.Duration) (time.Duration, error) {
	t0 := time.Unix(1_000_000, 0)
	stallEnd := func(x time.Duration) (time.Duration, bool) {
		for _, s := range stalls {
			if x >= s[0] && x < s[1] {
				return s[1], true
			}
		}
		return x, false
	}
	lastBeat := func(at time.Duration) time.Duration {
		var last time.Duration
		for _, x := range sent {
			if b, stalled := stallEnd(x); stalled {
				x = b + handlerLag
			}
			if x <= at {
				last = max(last, x)
			}
		}
		return last
	}
	w := newBeatWatch(timeout, t0)
	for due := w.every; due <= end; {
		at, _ := stallEnd(due)
		if err := w.tick(t0.Add(at), t0.Add(lastBeat(at))); err != nil {
			return at, err
		}
		due = (at/w.every + 1) * w.every
	}
	return 0, nil
}

// beatsEvery is when a controller's beats leave: at 0 (the phase's start)
// and every second up to until.
func beatsEvery(until time.Duration) []time.Duration {
	var out []time.Duration
	for x := time.Duration(0); x <= until; x += time.Second {
		out = append(out, x)
	}
	return out
}

// An agent starved of CPU for 3.3 s (issue 37: load 23 on 2 cores), whose
// heartbeat handler ran 0.6 s after its watchdog once it ran again, keeps
// its phase: the controller beat every second all along, and the beats
// waited in the socket. Before, the watchdog skipped one late tick only,
// and the next, 0.3 s on, found 3.5 s without a beat and stopped the phase.
func TestWatchdogStarvedAgentKeepsItsController(t *testing.T) {
	const timeout = 3 * time.Second
	for _, tc := range []struct {
		name   string
		stalls [][2]time.Duration
	}{
		{"one stall of 3.3 s", [][2]time.Duration{{1050 * time.Millisecond, 4350 * time.Millisecond}}},
		{"two stalls of 2.5 s a second apart", [][2]time.Duration{{1050 * time.Millisecond, 3550 * time.Millisecond}, {4550 * time.Millisecond, 7050 * time.Millisecond}}},
		{"a stall of 10 s", [][2]time.Duration{{1050 * time.Millisecond, 11050 * time.Millisecond}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			at, err := watchLife(timeout, tc.stalls, beatsEvery(20*time.Second), 600*time.Millisecond, 20*time.Second)
			if err != nil {
				t.Errorf("the controller kept beating, yet the agent took it for lost at %s: %v", at, err)
			}
		})
	}
}

// A controller really gone (killed, or stopped while the agent runs) is
// still lost within the timeout and a tick of its last beat.
func TestWatchdogLosesAGoneControllerInTime(t *testing.T) {
	const timeout = 3 * time.Second
	every := timeout / 10
	at, err := watchLife(timeout, nil, beatsEvery(2*time.Second), 0, 20*time.Second)
	if err == nil {
		t.Fatal("the controller's beats stopped at 2 s, and the agent never took it for lost")
	}
	if last := 2 * time.Second; at <= last+timeout || at > last+timeout+every {
		t.Errorf("lost at %s, want within (%s, %s]", at, last+timeout, last+timeout+every)
	}
	if want := "no word from the controller for 3.1s (this agent waits 3s)"; err.Error() != want {
		t.Errorf("message %q, want %q (no lateness to speak of)", err, want)
	}
}

// An agent stopped (SIGSTOP) for 10 s, past its timeout, whose controller
// died meanwhile, stops about a timeout after it continued, not at once:
// a live controller's beats would have had that long to be read. Its
// message says how late its own timer ran.
func TestWatchdogStoppedAgentLosesAGoneControllerATimeoutAfter(t *testing.T) {
	const timeout = 3 * time.Second
	every := timeout / 10
	resumed := 11050 * time.Millisecond
	at, err := watchLife(timeout, [][2]time.Duration{{1050 * time.Millisecond, resumed}}, beatsEvery(time.Second), 0, 30*time.Second)
	if err == nil {
		t.Fatal("the controller was gone, and the agent never took it for lost")
	}
	// The second before the stop counts too: lost a timeout after the
	// last beat, not counting the stall.
	if lo, hi := resumed+timeout-time.Second-every, resumed+timeout+every; at < lo || at > hi {
		t.Errorf("lost at %s, %s after it continued; want %s-%s after", at, at-resumed, lo-resumed, hi-resumed)
	}
	if !strings.Contains(err.Error(), "own timer ran 9.") || !strings.Contains(err.Error(), "late in that time") {
		t.Errorf("the message does not say how late the agent's own timer ran (about 9.7 s): %q", err)
	}
}
