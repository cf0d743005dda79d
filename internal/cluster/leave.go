package cluster

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"

	"github.com/storbench/storbench/internal/engine"
)

// Leaving a phase on several hosts. The phase's first host removes what
// the hosts share (fio's N-to-1 file, md's shared tree) when it cleans
// up, which the controller asks for once every host's run ended. An
// agent told to stop (SIGTERM) mid-phase cleans up on its own while the
// others may still run it: removing the shared file then took it from
// under a host whose fio opened it later ("no such file or directory").
// Leaving it instead left it for good when every agent stopped at once
// (scancel of a Slurm step): no agent was left for the run-level cleanup.
//
// Only the controller knows who still runs the phase, so the stopping
// agent asks it: a leave line on its prepare or run stream, or, told to
// stop between stages (prepared, or its run ended: no such stream is
// open), on its heartbeats (the answer to POST /v1/heartbeats over
// HTTP/2, to a POST /v1/heartbeat over HTTP/1.1), answered with POST
// /v1/leave. The controller answers from the phase's barrier hub,
// under its lock, so of agents stopping at once exactly the last to ask
// hears it is alone:
//
//   - others still run it: the agent removes its own files only
//     (engine.Cleaner's CleanupLeaving), and the controller has the first
//     host still there when every run ended (the heir) remove what the
//     hosts share in the first host's stead, with its own files
//     (CleanupAsFirst), as the phase's cleanup would have; it says so
//     with the host's stop. What a host gone before that leaves, the
//     run-level cleanup (RemoveShared) removes at the run's end;
//   - no other host does, or no answer came within the session's
//     heartbeat timeout (the controller is gone): it removes what the
//     hosts share too, whatever its rank. Of hosts that all ended their
//     runs and leave at once, only the first to ask hears so; the others
//     leave it to that one.
//
// A host whose run ended asks too: removing what the hosts share as the
// first host, on its own, took it from under hosts whose runs had not
// begun. An agent that lost its controller (no heartbeats) cleans up as
// before: the first host removes what the hosts share.

// leaveBody is the body of POST /v1/leave: whether other hosts still run
// the phase the agent is leaving.
type leaveBody struct {
	Others bool `json:"others"`
}

// goes takes the host of rank out of the phase for good (its agent is
// stopping) and says whether another host still runs it: one whose part
// has not ended (done, failed, lost or stopped: ended) and that is not
// leaving itself. Asked by every host at once, the last to ask hears none
// does. A host whose run ended does not count, though its agent may still
// be there: it may be told to stop too before its cleanup, without asking
// (no stream is open then), and none of the others would remove what the
// hosts share; and its load no longer opens it.
func (h *barrierHub) goes(rank int) (others bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.away[rank], h.gone[rank] = true, true
	if h.last {
		// Another leaving host heard it was the last and removes it.
		return true
	}
	for r := range h.hosts {
		if !h.away[r] {
			h.sharedLeft[rank] = h.shares
			h.handed = h.handed || h.shares
			return true
		}
	}
	h.last = true
	return false
}

// heirCleaner is an agent that can clean up its phase as the first host
// would, removing what the hosts share whatever its rank: the heir of a
// first host that left the phase on its own.
type heirCleaner interface {
	CleanupAsFirst(ctx context.Context) error
}

// heir names the host that removes what the hosts share when the phase
// is cleaned up, in the first host's stead: the first of agents (in rank
// order) still prepared (no error in prepErrs) and not leaving (a host
// told to stop after its run ended has no error), when a host that left
// on its own left what they share to the others; "" when none did (the
// first host's Cleanup removes it, as always), on one host (h is nil),
// or when no host is left.
func (h *barrierHub) heir(agents []Agent, prepErrs []error) string {
	if h == nil {
		return ""
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.handed {
		return ""
	}
	for i, a := range agents {
		if r := slices.Index(h.hosts, a.Name()); prepErrs[i] == nil && (r < 0 || !h.gone[r]) {
			return a.Name()
		}
	}
	return ""
}

// ended takes note that host ended its part with err: it leaves the
// barriers and no longer runs the phase. It returns err, saying so when
// the host left what the hosts share to the others. By name: the agents
// that run a phase are fewer than those prepared when one was told to
// stop while preparing (dropStopped), and their order is no longer the
// ranks'.
func (h *barrierHub) ended(host string, err error) error {
	rank := slices.Index(h.hosts, host)
	if rank < 0 {
		return err
	}
	h.leave(rank)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.away[rank] = true
	if h.sharedLeft[rank] && errors.Is(err, ErrStopped) {
		h.sharedLeft[rank] = false
		base, left := engine.SplitLeftovers(err)
		return withLeftovers(fmt.Errorf("%w; what the hosts share was left to the hosts still running the phase", base), left)
	}
	return err
}

// answerLeave answers an agent's leave line from the phase's hub (none:
// the agent is alone).
func (a *RemoteAgent) answerLeave(ctx context.Context, bar engine.Barrier) {
	others := false
	if m, ok := bar.(hubMember); ok {
		others = m.h.goes(m.rank)
	}
	// The agent takes a missing answer for "alone" after its heartbeat
	// timeout; the bound only keeps a stuck connection from holding this
	// goroutine.
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	req, err := a.request(pctx, http.MethodPost, "leave", leaveBody{Others: others})
	if err != nil {
		return
	}
	if resp, err := a.do(req, true); err == nil {
		resp.Body.Close()
	}
}

// phaseBarrier is the barrier of the phase the agent runs (nil on one
// host).
func (a *RemoteAgent) phaseBarrier() engine.Barrier {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.bar
}

// othersRun asks the controller whether other hosts still run the
// session's phase, which this agent leaves (it was told to stop), and
// waits for the answer at most the session's heartbeat timeout: a
// controller silent that long is taken for gone, and this host for the
// phase's last. A phase on one host has no others. The question waits in
// leaveAsk for whichever stream of the session takes it first: prepare,
// run, or the heartbeats.
func (s *Server) othersRun(sess *session) bool {
	if sess.hosts < 2 {
		return false
	}
	t := time.NewTimer(sess.hbTimeout)
	defer t.Stop()
	select {
	case sess.leaveAsk <- struct{}{}:
	case <-t.C:
		return false
	}
	select {
	case others := <-sess.leaveAns:
		return others
	case <-t.C:
		s.logf("run %s: no answer from the controller within %s: this host takes itself for the phase's last", sess.runID, sess.hbTimeout)
		return false
	}
}

// lastHere asks the controller whether this host is the last to run the
// session's phase (othersRun), and says so in the log when it is not.
func (s *Server) lastHere(sess *session) bool {
	others := s.othersRun(sess)
	if others {
		s.logf("run %s: phase %s: other hosts still run it: what the hosts share, if anything, is left to them", sess.runID, sess.phase)
	}
	return !others
}

// leaveBetween ends a session of a phase on several hosts whose agent was
// told to stop between stages (prepared, or its run ended): it asks the
// controller, on the heartbeats, whether other hosts still run the phase,
// cleans up as the answer says, and ends the session. The controller's
// run and cleanup are refused meanwhile (session.leaving) and after. What
// the cleanup left is kept for the controller to ask (Settle), as
// CleanupAlone keeps it.
func (s *Server) leaveBetween(sess *session, why string) {
	go func() {
		sess.op.Lock()
		if sess.prepared {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			last := s.lastHere(sess)
			if err := s.Agent.cleanupAlone(ctx, func(c engine.Cleaner) error { return c.CleanupLeaving(ctx, last) }); err != nil {
				s.logf("run %s: cleanup: %v", sess.runID, err)
			}
			cancel()
			sess.prepared = false
		}
		sess.op.Unlock()
		s.end(sess, errors.New("the agent is stopping: "+why))
	}()
}

// heartbeats takes the controller's heartbeats from the phase's one long
// request (beatStream). On several hosts over HTTP/2, its answer begins
// at once and carries the session's leave line when this agent, told to
// stop between stages, asks whether other hosts still run the phase: no
// other stream may be open then. Over HTTP/1.1 a request's body cannot
// be read on once its answer began: the answer comes at its end, as on
// one host, and the question goes with the answer to a beat
// (beatAnswer).
func (s *Server) heartbeats(w http.ResponseWriter, r *http.Request, sess *session) {
	if r.ProtoMajor < 2 || sess.hosts < 2 {
		sess.beatStream(r.Body)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	lw := &lineWriter{rc: http.NewResponseController(w), enc: json.NewEncoder(w), last: time.Now(), silence: silenceFor(sess.hbTimeout)}
	_ = lw.rc.Flush()
	read := make(chan struct{})
	go func() {
		defer close(read)
		sess.beatStream(r.Body)
	}()
	for {
		select {
		case <-read:
			return
		case <-sess.leaveAsk:
			if err := lw.send(line{Leave: true}); err != nil {
				// The next heartbeats request, or another stream, asks.
				select {
				case sess.leaveAsk <- struct{}{}:
				default:
				}
				return
			}
		}
	}
}

// beatAnswer answers a heartbeat of its own (POST /v1/heartbeat): with
// the session's leave line when the agent asks whether other hosts still
// run the phase, else with no body.
func (sess *session) beatAnswer(w http.ResponseWriter) {
	select {
	case <-sess.leaveAsk:
		writeJSON(w, http.StatusOK, line{Leave: true})
	default:
		w.WriteHeader(http.StatusNoContent)
	}
}

// beatAnswers reads the answer to a heartbeat request: a leave line on it
// is the agent asking whether other hosts still run the phase it leaves
// (Server.heartbeats), answered as one on a stream is. Nothing else is
// said on it; a line longer than a leave line is skipped, and the answer
// is read up to 64 KiB.
func (a *RemoteAgent) beatAnswers(body io.Reader) {
	br := bufio.NewReaderSize(io.LimitReader(body, 64<<10), 64)
	for {
		b, err := br.ReadSlice('\n')
		switch {
		case err == nil:
			var l line
			if json.Unmarshal(b, &l) == nil && l.Leave {
				go a.answerLeave(context.Background(), a.phaseBarrier())
			}
		case !errors.Is(err, bufio.ErrBufferFull):
			return
		}
	}
}

// leave hands the controller's answer to the session's leave line.
func (s *Server) leave(w http.ResponseWriter, r *http.Request) {
	var body leaveBody
	sess := s.sessionBody(w, r, "leave", &body)
	if sess == nil {
		return
	}
	select {
	case sess.leaveAns <- body.Others:
	default:
		writeErr(w, http.StatusConflict, "the agent asked once and has its answer")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// CleanupAsFirst cleans up the phase as its first host would, removing
// what the hosts share whatever this host's rank (heirCleaner).
func (a *LocalAgent) CleanupAsFirst(ctx context.Context) error {
	return a.CleanupLeaving(ctx, true)
}

// CleanupAsFirst cleans up the phase on the agent as its first host
// would, removing what the hosts share whatever its rank, and ends the
// session (heirCleaner).
func (a *RemoteAgent) CleanupAsFirst(ctx context.Context) error {
	return a.cleanup(ctx, cleanupBody{AsFirst: true})
}

// cleanupBody is the body of POST /v1/cleanup.
type cleanupBody struct {
	// AsFirst has the agent remove what the hosts share whatever its
	// rank: the first host left the phase on its own (heir).
	AsFirst bool `json:"as_first,omitempty"`
}

// CleanupLeaving cleans up the phase this host leaves on its own (its
// agent was told to stop) and frees the agent: an engine that can
// (engine.Cleaner) leaves what the hosts share while others still run the
// phase (last false), and removes it whatever this host's rank when none
// does (last); any other cleans up as Cleanup does. The removal is done
// before it returns: the agent goes away next.
func (a *LocalAgent) CleanupLeaving(ctx context.Context, last bool) error {
	_, err := a.cleanup(ctx, func(c engine.Cleaner) error { return c.CleanupLeaving(ctx, last) })
	return err
}
