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

func (sess *session) lastBeatAt() time.Time {
	sess.beatMu.Lock()
	defer sess.beatMu.Unlock()
	return sess.lastBeat
}

// watchdog aborts the session when the controller's heartbeats stop
// (beatWatch decides when).
func (s *Server) watchdog(sess *session) {
	w := newBeatWatch(sess.hbTimeout, time.Now())
	t := time.NewTicker(w.every)
	defer t.Stop()
	for {
		select {
		case <-sess.ended:
			return
		case <-t.C:
			err := w.tick(time.Now(), sess.lastBeatAt())
			if err == nil {
				continue
			}
			s.abort(sess, err)
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

// beatWatch is the watchdog's clock: it ticks every tenth of the timeout
// and measures how late each tick came: a tick far later than due means
// this agent itself was starved or stopped (its heartbeat handlers too),
// so the first such tick only looks again at the next, and the message
// says how late the agent's own timer ran.
type beatWatch struct {
	timeout, every time.Duration
	lastTick       time.Time // when the last tick came (or the watch began)
	lateMax        time.Duration
	wasLate        bool
}

func newBeatWatch(timeout time.Duration, now time.Time) *beatWatch {
	return &beatWatch{timeout: timeout, every: timeout / 10, lastTick: now}
}

// tick takes a tick that came at now, the last beat having come at beat;
// it returns why the controller is lost, or nil.
func (w *beatWatch) tick(now, beat time.Time) error {
	late := now.Sub(w.lastTick) - w.every
	w.lastTick = now
	w.lateMax = max(w.lateMax, late)
	if late > w.every && !w.wasLate {
		w.wasLate = true
		return nil
	}
	w.wasLate = false
	if d := now.Sub(beat); d > w.timeout {
		return lostController(d, w.timeout, w.lateMax)
	}
	return nil
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
