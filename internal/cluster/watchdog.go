package cluster

import (
	"fmt"
	"io"
	"time"
)

// The agent's side of the heartbeats: a session notes each beat, and its
// watchdog ends the phase when they stop (the controller's side is
// heartbeat.go).

func (sess *session) beat() {
	sess.beatMu.Lock()
	sess.lastBeat = time.Now()
	sess.beatMu.Unlock()
}

// beatStream takes the controller's heartbeats from one long request
// (POST /v1/heartbeats): the request's start is a beat, and so is every
// byte of its body, until the controller ends it or the connection
// breaks. Nothing read is kept, so the body has no size limit.
func (sess *session) beatStream(body io.Reader) {
	sess.beat()
	var buf [64]byte
	for {
		n, err := body.Read(buf[:])
		if n > 0 {
			sess.beat()
		}
		if err != nil {
			return
		}
	}
}

func (sess *session) sinceBeat() time.Duration {
	sess.beatMu.Lock()
	defer sess.beatMu.Unlock()
	return time.Since(sess.lastBeat)
}

// watchdog aborts the session when the controller's heartbeats stop. It
// runs on its own ticker and measures how late that ticker runs: a tick
// far later than due means this agent itself was starved or stopped (its
// heartbeat handlers too), so the first such tick only looks again at the
// next, and the message says how late the agent's own timer ran.
func (s *Server) watchdog(sess *session) {
	timeout := sess.hbTimeout
	every := timeout / 10
	t := time.NewTicker(every)
	defer t.Stop()
	last, wasLate := time.Now(), false
	var lateMax time.Duration
	for {
		select {
		case <-sess.ended:
			return
		case <-t.C:
			now := time.Now()
			late := now.Sub(last) - every
			last = now
			lateMax = max(lateMax, late)
			if late > every && !wasLate {
				wasLate = true
				continue
			}
			wasLate = false
			if d := sess.sinceBeat(); d > timeout {
				s.abort(sess, lostController(d, timeout, lateMax))
				// The controller is gone: the run-level cleanup is this
				// agent's, once its phase cleaned up.
				go func() {
					<-sess.ended
					if err := removePins(sess.runID); err != nil {
						s.logf("run %s: shared area: %v", sess.runID, err)
					}
				}()
				return
			}
		}
	}
}

// lostController is why an agent stopped its phase: no heartbeat for d,
// past timeout, and how late its own watchdog ran at worst, when that was
// long enough to matter (the agent was starved too).
func lostController(d, timeout, late time.Duration) error {
	err := fmt.Errorf("no word from the controller for %s (this agent waits %s)", d.Round(100*time.Millisecond), timeout)
	if late >= timeout/4 {
		err = fmt.Errorf("%w; this agent's own timer ran up to %s late: it was starved of CPU or stopped too", err, late.Round(100*time.Millisecond))
	}
	return err
}
