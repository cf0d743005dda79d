package cluster

import (
	"net/http"
	"time"
)

// An agent started for one run by the controller's launcher (ssh, srun,
// mpiexec: --stdin, --launched-by) learns the run's fresh token from it
// and serves no other controller. It ends when its stdin closes, which the
// launcher passes on when the controller ends; where that chain is broken
// (srun gone, slurmd gone, slurmstepd left holding the tasks' stdin open)
// it would wait for a controller that never comes back, for good. So such
// an agent also ends when it lost its controller mid-phase (the heartbeats
// stopped, a stream's connection closed or could not be written) and no
// request came in orphanAfter of that. The wait lets a controller that was
// stopped (SIGSTOP) or starved come back and ask what the phase's cleanup
// left. A controller whose launcher ended first (it cannot pass the end
// of stdin on) tells the agents itself that the run is over (End). A
// controller killed between phases holds no stream to any agent and says
// nothing: there the agent has only its stdin's end.

// orphanAfter is how long an agent of one run waits for its controller to
// come back after losing it: ten of the heartbeat timeouts that told it
// the controller was gone (30 s with the default 3 s).
func orphanAfter(hbTimeout time.Duration) time.Duration { return 10 * hbTimeout }

// Over is closed when an agent of one run (OneRun) has no more to serve:
// its controller said the run is over (End), or it lost its controller
// mid-phase and none came back within orphanAfter. The agent should end.
func (s *Server) Over() <-chan struct{} { return s.overChan() }

func (s *Server) overChan() chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.over == nil {
		s.over = make(chan struct{})
	}
	return s.over
}

// endOneRun closes Over once.
func (s *Server) endOneRun() {
	ch := s.overChan()
	s.overOnce.Do(func() { close(ch) })
}

// endRun answers a controller that says its run is over (POST end): it
// says so when its launcher ended before it could pass its stdin's end on
// to the agents (srun killed, slurmd gone: slurmstepd holds the agents'
// stdin open). An agent of one run ends; any other refuses, as it serves
// other controllers too.
func (s *Server) endRun(w http.ResponseWriter) {
	if !s.OneRun {
		writeErr(w, http.StatusConflict, "this agent serves any controller: it ends only when stopped on its machine (a signal)")
		return
	}
	s.logf("the controller says its run is over and its launcher could not tell this agent: ending")
	w.WriteHeader(http.StatusNoContent)
	s.endOneRun()
}

// heard notes a request that passed the agent's checks of who sent it.
func (s *Server) heard() {
	s.mu.Lock()
	s.lastHeard = time.Now()
	s.mu.Unlock()
}

// controllerLost stops the session's phase because its controller is gone
// (abort), and on an agent of one run waits for it to come back.
func (s *Server) controllerLost(sess *session, cause error) {
	s.abort(sess, cause)
	s.awaitController(sess)
}

// awaitController closes Over, on an agent of one run, when no request
// comes within orphanAfter of now (the moment sess lost its controller),
// once sess has cleaned up.
func (s *Server) awaitController(sess *session) {
	if !s.OneRun {
		return
	}
	s.mu.Lock()
	already := sess.awaiting
	sess.awaiting = true
	s.mu.Unlock()
	if already {
		return // the watchdog and a stream both saw it go
	}
	lost, wait := time.Now(), orphanAfter(sess.hbTimeout)
	s.logf("run %s: this agent serves that run alone: it ends unless a controller comes within %s", sess.runID, wait)
	go func() {
		<-sess.ended
		time.Sleep(time.Until(lost.Add(wait)))
		s.mu.Lock()
		back := s.lastHeard.After(lost)
		s.mu.Unlock()
		if back {
			return
		}
		s.logf("run %s: no controller came within %s of losing it: ending", sess.runID, wait)
		s.endOneRun()
	}()
}
