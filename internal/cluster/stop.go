package cluster

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/storbench/storbench/internal/engine"
)

// How an agent stops: asked by its controller (POST /v1/stop), or told to
// by a signal on its host (Stop), whatever stage its session is in, and
// the cleanup of a session so stopped (on several hosts, as the
// controller's answer to its leave line says: leave.go).

// stopAsked ends what the session does for the controller that asks
// (POST /v1/stop).
func (s *Server) stopAsked(w http.ResponseWriter, r *http.Request) {
	if sess := s.session(w, r); sess != nil {
		s.logf("run %s: the controller asked to stop", sess.runID)
		s.stopStage(sess)
		w.WriteHeader(http.StatusNoContent)
	}
}

// stopStage ends what the session does for the controller that asked
// (it was interrupted): a preparation stops and undoes itself, a load
// stops and sends what it measured.
func (s *Server) stopStage(sess *session) {
	s.mu.Lock()
	stage := sess.stage
	s.mu.Unlock()
	if stage == "prepare" {
		sess.cancel(errors.New("the controller stopped the run"))
		return
	}
	s.Agent.Stop()
}

// markStopped marks res (nil: nothing measured) as stopped by a signal on
// the agent, why.
func markStopped(res *engine.HostResult, why string) {
	if res == nil {
		return
	}
	res.Err = "stopped by a signal on the agent (" + why + ")"
	if res.Meta == nil {
		res.Meta = map[string]string{}
	}
	res.Meta["stopped_by"] = "signal"
}

// stoppedErr cleans up a session whose agent was told to stop, after the
// stage in progress ended with err, and returns the error that says so,
// with what the cleanup left. sess.op is held.
func (s *Server) stoppedErr(sess *session, err error, why string) error {
	var left error
	if sess.prepared {
		s.mu.Lock()
		sess.stage = "cleanup"
		s.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		left = s.leaveCleanup(ctx, sess)
		// The agent goes away next: its files go first, and what stays
		// is told with the stop.
		left = withRemoved(ctx, left, s.Agent, sess.runID, sess.phase)
		cancel()
		sess.prepared = false
		if left != nil {
			s.logf("run %s: cleanup: %v", sess.runID, left)
		}
	}
	base := fmt.Errorf("%w (%s)", ErrStopped, why)
	if err != nil && !errors.Is(err, context.Canceled) {
		base = fmt.Errorf("%w (%s): %v", ErrStopped, why, err)
	}
	return engine.WithLeftovers(base, left)
}

// leaveCleanup cleans up the phase of a session whose agent was told to
// stop: on several hosts, as the controller's answer says (leave.go).
func (s *Server) leaveCleanup(ctx context.Context, sess *session) error {
	if sess.hosts < 2 {
		return s.Agent.Cleanup(ctx)
	}
	return s.Agent.CleanupLeaving(ctx, s.lastHere(sess))
}

// Stop is what the agent does when told to stop (SIGTERM, SIGINT): no new
// phase is taken; a phase being prepared or run ends gracefully, what it
// measured goes to the controller marked as stopped, the agent cleans up,
// and Stop returns once the session has ended (or ctx ends).
func (s *Server) Stop(ctx context.Context, why string) error {
	s.mu.Lock()
	s.stopping = why
	sess := s.sess
	stage := ""
	between := false
	if sess != nil && !sess.ending {
		sess.stopped = why
		stage = sess.stage
		if (stage == "prepared" || stage == "ran") && sess.hosts > 1 && !sess.leaving {
			sess.leaving, between = true, true
		}
	}
	s.mu.Unlock()
	if sess == nil {
		return nil
	}
	s.logf("run %s: told to stop (%s) during %s", sess.runID, why, stage)
	switch stage {
	case "prepare":
		sess.cancel(errors.New("the agent is stopping: " + why))
	case "run":
		s.Agent.Stop()
	case "prepared", "ran":
		// Between stages: nothing of the controller's is running here.
		switch {
		case between:
			s.leaveBetween(sess, why)
		case sess.hosts < 2:
			s.abort(sess, errors.New("the agent is stopping: "+why))
		}
	}
	select {
	case <-sess.ended:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
