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
			s.controllerLost(sess, err)
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
// and measures how late each tick came. Time this agent could not run
// (starved of CPU, or stopped) is no sign that the controller is gone:
// its beats may wait unread in the socket meanwhile. So the controller is
// lost when the time since the last beat, less this agent's own lateness
// since then, passes the timeout. A controller really gone while the agent
// runs is lost within the timeout and a tick (plus the agent's lateness);
// an agent stopped past the timeout and continued, its controller gone,
// stops about a timeout after it continued.
type beatWatch struct {
	timeout, every time.Duration
	lastTick       time.Time // when the last tick came (or the watch began)
	seen           time.Time // the last beat this watch saw
	late           time.Duration
}

func newBeatWatch(timeout time.Duration, now time.Time) *beatWatch {
	return &beatWatch{timeout: timeout, every: timeout / 10, lastTick: now}
}

// tick takes a tick that came at now, the last beat having come at beat;
// it returns why the controller is lost, or nil.
func (w *beatWatch) tick(now, beat time.Time) error {
	late := max(0, now.Sub(w.lastTick)-w.every)
	w.lastTick = now
	silent := now.Sub(beat)
	if !beat.Equal(w.seen) {
		// A new beat: only the lateness after it counts.
		w.seen, w.late = beat, 0
		late = min(late, max(0, silent))
	}
	w.late += late
	if silent-w.late <= w.timeout {
		return nil
	}
	return lostController(silent, w.timeout, w.late, w.every)
}

// lostController is why an agent stopped its phase: no heartbeat for d,
// of which its own timer ran late (the agent itself starved or stopped)
// for late, not counted against timeout; late is said when it is a tick
// (every) or more.
func lostController(d, timeout, late, every time.Duration) error {
	err := fmt.Errorf("no word from the controller for %s (this agent waits %s)", d.Round(100*time.Millisecond), timeout)
	if late >= every {
		err = fmt.Errorf("%w; this agent's own timer ran %s late in that time (it was starved of CPU or stopped too), not counted", err, late.Round(100*time.Millisecond))
	}
	return err
}
