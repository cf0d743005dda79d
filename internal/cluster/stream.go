package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/storbench/storbench/internal/engine"
)

// streamSpec says what a stream carries.
type streamSpec struct {
	// done gives the stage's outcome; it ends the stream.
	done <-chan error
	// arrive carries the engine's barrier arrivals (run only).
	arrive <-chan arriveLine
	// leave carries the agent's question whether other hosts still run
	// the phase (prepare and run; leave.go).
	leave <-chan struct{}
	// notify says snapshots are waiting in snapshots (run only).
	notify    <-chan struct{}
	snapshots func() []engine.Snapshot
	// result gives the final result after done (run only).
	result func() *engine.HostResult
	// cleanup streams never abort: they end the session when done.
	cleanup bool
	// stopped, if set, says why the agent was told to stop ("" if not),
	// read once done has fired.
	stopped func() string
}

// maxPending is how many snapshots wait for a slow stream: a minute.
const maxPending = 60

// liveQueue holds a run's snapshots not sent yet, each to be sent on its
// own: the controller's --live writes every second once. A stream that
// falls further behind than maxPending drops the oldest (the next
// snapshot's counts, cumulative, cover them).
type liveQueue struct {
	mu      sync.Mutex
	pending []engine.Snapshot
	// notify says snapshots are waiting.
	notify chan struct{}
}

func newLiveQueue() *liveQueue { return &liveQueue{notify: make(chan struct{}, 1)} }

// push queues a snapshot and wakes the stream.
func (q *liveQueue) push(snap engine.Snapshot) {
	q.mu.Lock()
	if len(q.pending) >= maxPending {
		q.pending = append(q.pending[:0], q.pending[1:]...)
	}
	q.pending = append(q.pending, snap)
	q.mu.Unlock()
	select {
	case q.notify <- struct{}{}:
	default:
	}
}

// take returns the snapshots waiting, oldest first, and empties the queue.
func (q *liveQueue) take() []engine.Snapshot {
	q.mu.Lock()
	defer q.mu.Unlock()
	sn := q.pending
	q.pending = nil
	return sn
}

// errCleanedUp ends a session whose cleanup stream is over.
var errCleanedUp = errors.New("phase cleaned up")

// lineWriter writes a stream's NDJSON lines, each flushed at once, and
// knows when it last wrote one.
type lineWriter struct {
	rc   *http.ResponseController
	enc  *json.Encoder
	last time.Time
	// silence is how long a write may take (silenceFor the session's
	// heartbeat timeout).
	silence time.Duration
}

// send writes one line. A controller that is cut off stops reading; the
// deadline turns a stuck write into an error instead of a hung agent. It
// is armed for the write only: over HTTP/2 a deadline left armed fires
// while the stream says nothing (a starved agent between two lines, a
// stage waiting for its tick) and resets the stream.
func (lw *lineWriter) send(l line) error {
	_ = lw.rc.SetWriteDeadline(time.Now().Add(lw.silence))
	defer func() { _ = lw.rc.SetWriteDeadline(time.Time{}) }()
	if err := lw.enc.Encode(l); err != nil {
		return err
	}
	lw.last = time.Now()
	return lw.rc.Flush()
}

// sendSnapshots writes a line per snapshot, up to the first error.
func (lw *lineWriter) sendSnapshots(snaps []engine.Snapshot) error {
	for _, sn := range snaps {
		if err := lw.send(line{Snapshot: &sn}); err != nil {
			return err
		}
	}
	return nil
}

// stream writes an NDJSON stream: a tick every tickEvery while nothing else
// is said, snapshots as they come, and a last line with the stage's error
// (and the result, for run). It returns the stage's error and whether the
// stream ended normally. If the controller goes away or a write fails, the
// session is aborted: the load stops and the agent cleans up.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, sess *session, sp streamSpec) (error, bool) {
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	lw := &lineWriter{rc: http.NewResponseController(w), enc: json.NewEncoder(w), last: time.Now(), silence: silenceFor(sess.hbTimeout)}
	// The answer's headers go at once, not with the first line (a tick a
	// second later): the controller calls a bounded number of agents at
	// once, each until its answer (Controller.fanOut).
	_ = lw.rc.Flush()
	tick := time.NewTicker(tickEvery / 2)
	defer tick.Stop()
	for {
		var err error
		select {
		case derr := <-sp.done:
			return derr, s.sendOutcome(lw, sess, sp, derr)
		case a := <-sp.arrive:
			err = lw.send(line{Arrive: &a})
		case <-sp.leave:
			err = lw.send(line{Leave: true})
		case <-sp.notify:
			err = lw.sendSnapshots(sp.snapshots())
		case <-tick.C:
			if time.Since(lw.last) >= tickEvery {
				err = lw.send(line{Tick: true})
			}
		case <-r.Context().Done():
			err = errors.New("the controller closed the connection")
		}
		if err != nil {
			if sp.cleanup {
				// Keep cleaning; the session ends when cleanup returns.
				go func() { <-sp.done; s.end(sess, errCleanedUp) }()
				s.awaitController(sess)
				return nil, false
			}
			s.controllerLost(sess, err)
			return nil, false
		}
	}
}

// sendOutcome writes a stage's last line, its outcome derr (and for run
// the result), and says whether it was sent. A run stream that cannot
// send it aborts the session.
func (s *Server) sendOutcome(lw *lineWriter, sess *session, sp streamSpec, derr error) bool {
	// The last snapshots (fio's final counts) go before the outcome,
	// however the select chose.
	if sp.snapshots != nil {
		_ = lw.sendSnapshots(sp.snapshots())
	}
	l := line{Done: true}
	base, left := engine.SplitLeftovers(derr)
	if base != nil {
		l.Error = base.Error()
	}
	l.Leftovers = left
	l.Unsupported = errors.Is(derr, engine.ErrUnsupported)
	if sp.stopped != nil {
		l.Stopped = sp.stopped()
	}
	if sp.result != nil {
		l.Result = sp.result()
	}
	if sp.cleanup {
		// Free the agent before saying so: a controller that reads the
		// last line may start the next phase at once.
		s.end(sess, errCleanedUp)
	}
	werr := lw.send(l)
	if werr != nil && !sp.cleanup {
		s.controllerLost(sess, fmt.Errorf("could not send the outcome to the controller: %v", werr))
	}
	return werr == nil
}
