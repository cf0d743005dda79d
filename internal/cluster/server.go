package cluster

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/hosts"
	"github.com/storbench/storbench/internal/record"
)

// Server serves an agent to one controller at a time over HTTP: the
// protocol in protocol.go around an in-process LocalAgent, so a remote phase
// runs exactly the code a local one runs.
//
// The server obeys only requests that carry Token (unless Token is empty,
// which the agent command allows only with TLS client certificates). It
// never takes a program path from the network: fio's binary and the
// exec-option refusal are the LocalAgent's own settings.
type Server struct {
	// Agent runs the phases.
	Agent *LocalAgent
	// Token is the shared secret every request must carry as a bearer
	// token. It is never logged.
	Token string
	// Logf, if set, receives one line per event (never a secret).
	Logf func(format string, args ...any)
	// ClockSkew is added to every time the agent reports and subtracted
	// from every time it is given: a test hook that makes this agent's clock
	// look off by that much.
	ClockSkew time.Duration
	// HeartbeatTimeout overrides HeartbeatTimeout for a controller that
	// does not say its own (Request.HeartbeatTimeoutNs).
	HeartbeatTimeout time.Duration
	// Watch, if set, hears what the agent's phases do (the agent's
	// metrics).
	Watch Watcher
	// OneRun says the agent serves the one run whose launcher started it
	// (--stdin, --launched-by): it ends (Over) when that run's controller
	// says the run is over, or was lost and did not come back (orphan.go).
	OneRun bool

	infoOnce sync.Once
	info     Info

	mu   sync.Mutex
	sess *session
	// runs are the run ids of every session this agent served: the runs
	// whose pins (pins.go) it takes away when it goes away.
	runs map[string]bool
	// stopping, once set, is why the agent is going away (a signal): no
	// new phase is taken.
	stopping string
	// lastHeard is when the last request that passed the checks came.
	lastHeard time.Time
	// over is closed when an agent of one run has no more to serve (Over).
	over     chan struct{}
	overOnce sync.Once
}

// Watcher hears, on an agent, the phases it runs: each is prepared, sends
// snapshots about once a second, and ends with a result or an error. Calls
// come from the session's goroutines and must not block.
type Watcher interface {
	Prepare(runID, phase, host string)
	Snapshot(runID string, s engine.Snapshot)
	Ended(runID, phase, host string, res *engine.HostResult, err error)
}

// session is one phase for one controller, from prepare to cleanup.
type session struct {
	id, runID, from string
	// phase and host name the phase and this agent in it.
	phase, host string
	ctx         context.Context
	cancel      context.CancelCauseFunc
	// op is held by whichever of prepare, run and cleanup is working, so an
	// abort cleans up only after the engine has returned.
	op       sync.Mutex
	prepared bool
	ending   bool
	ended    chan struct{}
	// stage is what the session does now: "prepare", "prepared", "run",
	// "cleanup" (under Server.mu).
	stage string
	// stopped, when set, is why the agent was told to stop mid-session:
	// the stage in progress ends gracefully and the session cleans up and
	// ends on its own (under Server.mu).
	stopped string
	// awaiting says the session lost its controller and the agent waits
	// for one to come back (awaitController; under Server.mu).
	awaiting bool
	// leaving says the agent, told to stop between stages of a phase on
	// several hosts, asks the controller and cleans up on its own
	// (leaveBetween): the controller's run and cleanup are refused
	// (under Server.mu).
	leaving bool
	// bar is the phase's barrier across hosts (nil on one host), and
	// hosts how many hosts run the phase.
	bar   *streamBarrier
	hosts int
	// leaveAsk carries the agent's question, told to stop, to the
	// stream (a leave line), and leaveAns the controller's answer: do
	// other hosts still run the phase (othersRun).
	leaveAsk chan struct{}
	leaveAns chan bool

	beatMu   sync.Mutex
	lastBeat time.Time
	// hbTimeout is how long the session waits without a heartbeat: the
	// controller's, else the agent's.
	hbTimeout time.Duration
}

// logf logs one line, at most maxLogLine bytes: what a controller sent
// (a phase's name, a request that did not decode) never floods the log.
func (s *Server) logf(format string, args ...any) {
	if s.Logf != nil {
		s.Logf("%s", clipText(fmt.Sprintf(format, args...), maxLogLine))
	}
}

func (s *Server) now() time.Time { return time.Now().Add(s.ClockSkew) }

// ServeHTTP checks the token and the protocol, then routes the request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set(HeaderProtocol, protoString)
	w.Header().Set(HeaderVersion, s.Agent.Version)
	if s.Token != "" && !tokenOK(r, s.Token) {
		s.logf("refused a request from %s: wrong or missing token", r.RemoteAddr)
		writeErr(w, http.StatusUnauthorized, "the agent refused the token (give the controller the agent's --token-file)")
		return
	}
	s.heard()
	if p := r.Header.Get(HeaderProtocol); p != protoString {
		if p == "" {
			p = "(none)"
		}
		writeErr(w, http.StatusBadRequest, "%v", protocolErr(Protocol, s.Agent.Version, p))
		return
	}
	path, ok := strings.CutPrefix(r.URL.Path, PathPrefix+"/")
	if !ok {
		writeErr(w, http.StatusNotFound, "unknown path %s: this agent speaks protocol %d under %s/", r.URL.Path, Protocol, PathPrefix)
		return
	}
	want := http.MethodPost
	if path == "info" || path == "time" {
		want = http.MethodGet
	}
	switch path {
	case "release":
		// Bounded by the phase's host count (release).
	case "heartbeats":
		// Read and dropped, a byte a beat, for as long as the phase lasts.
	case "prepare", "resources":
		r.Body = http.MaxBytesReader(w, r.Body, maxPhaseBody)
	default:
		r.Body = http.MaxBytesReader(w, r.Body, maxSmallBody)
	}
	if r.Method != want {
		writeErr(w, http.StatusMethodNotAllowed, "%s %s: use %s", r.Method, r.URL.Path, want)
		return
	}
	switch path {
	case "info":
		writeJSON(w, http.StatusOK, s.infoNow())
	case "time":
		writeJSON(w, http.StatusOK, timeBody{TimeNs: s.now().UnixNano()})
	case "prepare":
		s.prepare(w, r)
	case "run":
		s.run(w, r)
	case "cleanup":
		s.cleanup(w, r)
	case "heartbeat":
		if sess := s.session(w, r); sess != nil {
			sess.beat()
			sess.beatAnswer(w)
		}
	case "heartbeats":
		if sess := s.session(w, r); sess != nil {
			s.heartbeats(w, r, sess)
		}
	case "release":
		s.release(w, r)
	case "leave":
		s.leave(w, r)
	case "event":
		s.event(w, r)
	case "settle":
		s.settle(w, r)
	case "resources":
		s.resources(w, r)
	case "end":
		s.endRun(w)
	case "stop":
		s.stopAsked(w, r)
	default:
		writeErr(w, http.StatusNotFound, "unknown path %s", r.URL.Path)
	}
}

// decodePrepare decodes a prepare request.
func decodePrepare(rd io.Reader) (Request, error) {
	var req Request
	if err := json.NewDecoder(rd).Decode(&req); err != nil {
		return req, err
	}
	return req, req.checkNames()
}

// checkNames refuses a request whose names would lead the agent's paths
// outside DIR: its own host's name and the next host's are joined into
// paths (DIR/storbench/<run>/<host>, and fio's read_from reads
// fio-<next> in the run's shared area), so each, when given, must be a
// host name (hosts.CheckName: no '/', no ".."), and the run id one path
// level. The controller names hosts so (HostNames); a request that does
// not came from something else.
func (req *Request) checkNames() error {
	for _, n := range []struct{ what, name string }{{"this host", req.Host}, {"the next host", req.Next}} {
		if n.name == "" {
			continue
		}
		if err := hosts.CheckName(n.name); err != nil {
			return fmt.Errorf("the name of %s: %v", n.what, err)
		}
	}
	if req.RunID != "" {
		if err := engine.CheckPathElement(req.RunID); err != nil {
			return fmt.Errorf("run id: %v", err)
		}
	}
	return nil
}

// infoNow returns the agent's Info with the current clock and holder. The
// versions are read once: fio --version is a process start.
func (s *Server) infoNow() Info {
	s.infoOnce.Do(func() { s.info, _ = s.Agent.Info(context.Background()) })
	in := s.info
	in.Time = s.now()
	s.mu.Lock()
	if s.sess != nil {
		in.Busy = s.sess.busyText()
	}
	s.mu.Unlock()
	return in
}

func (sess *session) busyText() string {
	t := "run " + sess.runID
	if sess.from != "" {
		t += " from " + sess.from
	}
	if sess.ending {
		t += " (stopping)"
	}
	return t
}

// session returns the current session when the request names it, or writes
// the error and returns nil.
func (s *Server) session(w http.ResponseWriter, r *http.Request) *session {
	id := r.Header.Get(HeaderSession)
	s.mu.Lock()
	sess := s.sess
	var busy string
	ending := false
	if sess != nil {
		busy, ending = sess.busyText(), sess.ending
	}
	stopping := s.stopping
	s.mu.Unlock()
	switch {
	case stopping != "" && (sess == nil || ending || id != sess.id):
		writeJSON(w, http.StatusConflict, errorBody{Error: "the agent is stopping: " + stopping, Stopped: stopping})
		return nil
	case sess == nil:
		writeErr(w, http.StatusConflict, "no phase is prepared on this agent (it may have stopped the phase after losing the controller)")
		return nil
	case id == "" || id != sess.id:
		writeErr(w, http.StatusConflict, "busy with %s", busy)
		return nil
	case ending:
		writeErr(w, http.StatusConflict, "the phase was stopped: %v", context.Cause(sess.ctx))
		return nil
	}
	return sess
}

// sessionBody is session's answer with r's JSON body decoded into v
// besides: nil when there is no such session or the body does not decode
// (what names the request in the answer saying so), w then answered.
func (s *Server) sessionBody(w http.ResponseWriter, r *http.Request, what string, v any) *session {
	sess := s.session(w, r)
	if sess == nil {
		return nil
	}
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		writeErr(w, http.StatusBadRequest, "%s", bodyErr(what, err))
		return nil
	}
	return sess
}

// prepare starts a session and prepares the phase, streaming ticks.
func (s *Server) prepare(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get(HeaderSession)
	if id == "" {
		writeErr(w, http.StatusBadRequest, "prepare needs a %s header", HeaderSession)
		return
	}
	req, err := decodePrepare(r.Body)
	if err != nil {
		writeErr(w, http.StatusBadRequest, "%s", bodyErr("prepare", err))
		return
	}
	if req.Controller == "" {
		req.Controller = r.RemoteAddr
	}
	s.mu.Lock()
	if s.stopping != "" {
		why := s.stopping
		s.mu.Unlock()
		writeJSON(w, http.StatusConflict, errorBody{Error: "the agent is stopping: " + why, Stopped: why})
		return
	}
	if s.sess != nil {
		busy := s.sess.busyText()
		s.mu.Unlock()
		writeErr(w, http.StatusConflict, "busy with %s", busy)
		return
	}
	sess := s.newSession(id, &req)
	ctx := sess.ctx
	sess.beat()
	s.sess = sess
	s.mu.Unlock()
	s.logf("run %s: phase %s (%s) for %s", req.RunID, req.Phase.Name, req.Phase.Engine, req.Controller)
	if s.Watch != nil {
		s.Watch.Prepare(sess.runID, sess.phase, sess.host)
	}
	go s.watchdog(sess)

	done := make(chan error, 1)
	sess.op.Lock()
	var why string
	go func() {
		defer sess.op.Unlock()
		err := s.Agent.Prepare(ctx, req)
		sess.prepared = err == nil
		s.mu.Lock()
		sess.stage = "prepared"
		why = sess.stopped
		s.mu.Unlock()
		if why != "" {
			// Told to stop while preparing: undo it and go.
			err = s.stoppedErr(sess, err, why)
		} else if err != nil {
			// A failed prepare leaves nothing to clean up: the agent is
			// free before the controller reads why, and may be asked
			// again at once.
			s.end(sess, err)
		}
		done <- err
	}()
	err, ok := s.stream(w, r, sess, streamSpec{done: done, stopped: func() string { return why }, leave: sess.leaveAsk})
	if !ok {
		return // the stream aborted the session
	}
	if why != "" {
		s.end(sess, errors.New("the agent is stopping: "+why))
		return
	}
	if err != nil {
		// A failed prepare leaves nothing to clean up: the session ends here.
		s.logf("run %s: prepare failed: %v", req.RunID, err)
		if s.Watch != nil {
			s.Watch.Ended(sess.runID, sess.phase, sess.host, nil, err)
		}
		s.end(sess, err)
	}
}

// newSession is the session of a prepare request, in stage prepare; with
// several hosts it holds the barrier the request's phase meets at. The
// caller holds s.mu.
func (s *Server) newSession(id string, req *Request) *session {
	ctx, cancel := context.WithCancelCause(context.Background())
	sess := &session{id: id, runID: req.RunID, from: req.Controller, ctx: ctx, cancel: cancel, ended: make(chan struct{}), stage: "prepare",
		phase: req.Phase.Name, host: req.Host, hosts: req.Hosts, leaveAsk: make(chan struct{}, 1), leaveAns: make(chan bool, 1)}
	if sess.host == "" {
		sess.host = s.Agent.Host
	}
	sess.hbTimeout = time.Duration(req.HeartbeatTimeoutNs)
	if sess.hbTimeout <= 0 {
		sess.hbTimeout = s.HeartbeatTimeout
	}
	if sess.hbTimeout <= 0 {
		sess.hbTimeout = HeartbeatTimeout
	}
	sess.hbTimeout = min(sess.hbTimeout, maxHeartbeatTimeout)
	if s.runs == nil { // s.mu is held
		s.runs = map[string]bool{}
	}
	s.runs[req.RunID] = true
	req.Barrier = nil
	if req.Hosts > 1 {
		sess.bar = newStreamBarrier(s.ClockSkew)
		req.Barrier = sess.bar
	}
	return sess
}

// run runs the prepared phase, streaming its snapshots and then its result.
func (s *Server) run(w http.ResponseWriter, r *http.Request) {
	var body runBody
	sess := s.sessionBody(w, r, "run", &body)
	if sess == nil {
		return
	}
	startAt := time.Unix(0, body.StartNs).Add(-s.ClockSkew)
	q := newLiveQueue()
	live := func(snap engine.Snapshot) {
		if s.Watch != nil {
			s.Watch.Snapshot(sess.runID, snap)
		}
		q.push(snap)
	}
	done := make(chan runOutcome, 1)
	s.mu.Lock()
	leaving, why := sess.leaving, sess.stopped
	if !leaving {
		// Under the lock Stop reads the stage with: a stop before this
		// is the session's leaving, one after it the run's.
		sess.stage = "run"
	}
	s.mu.Unlock()
	if leaving {
		writeJSON(w, http.StatusConflict, errorBody{Error: "the agent is stopping: " + why, Stopped: why})
		return
	}
	sess.op.Lock()
	if why != "" {
		s.Agent.Stop() // told to stop just before the run came
	}
	go func() {
		defer sess.op.Unlock()
		done <- s.load(sess, startAt, live)
	}()
	errc := make(chan error, 1)
	var final *engine.HostResult
	go func() {
		o := <-done
		final, why = o.res, o.stopped
		errc <- o.err
	}()
	var arrive <-chan arriveLine
	if sess.bar != nil {
		arrive = sess.bar.arrive
	}
	_, ok := s.stream(w, r, sess, streamSpec{
		done:      errc,
		stopped:   func() string { return why },
		arrive:    arrive,
		leave:     sess.leaveAsk,
		notify:    q.notify,
		snapshots: q.take,
		result:    func() *engine.HostResult { return final },
	})
	if ok && why != "" {
		s.end(sess, errors.New("the agent is stopping: "+why))
	}
}

// runOutcome is how a session's load ended: its result, its error, and
// why the agent was told to stop, if it was.
type runOutcome struct {
	res     *engine.HostResult
	err     error
	stopped string
}

// load runs the session's phase from startAt, live hearing its snapshots,
// and says how it ended, in the controller's clock: told to stop, what was
// measured so far is the result, marked so.
func (s *Server) load(sess *session, startAt time.Time, live engine.LiveFunc) runOutcome {
	res, err := s.Agent.Run(sess.ctx, startAt, live)
	if c := context.Cause(sess.ctx); errors.Is(err, context.Canceled) && c != nil && !errors.Is(c, context.Canceled) {
		// The agent ended the phase itself: say why, not "canceled".
		err = fmt.Errorf("the agent ended the phase: %w", c)
	}
	if err != nil {
		s.logf("run %s: load stopped: %v", sess.runID, err)
	} else {
		s.logf("run %s: load stopped: phase done", sess.runID)
	}
	s.mu.Lock()
	sess.stage = "ran"
	why := sess.stopped
	s.mu.Unlock()
	if why != "" {
		// The agent cleans up before saying it is done.
		markStopped(res, why)
		err = s.stoppedErr(sess, nil, why)
	}
	if s.Watch != nil {
		s.Watch.Ended(sess.runID, sess.phase, sess.host, res, err)
	}
	shiftResult(res, s.ClockSkew)
	return runOutcome{res, err, why}
}

// release hands a barrier's release from the controller to the engine.
func (s *Server) release(w http.ResponseWriter, r *http.Request) {
	sess := s.session(w, r)
	if sess == nil {
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxSmallBody+int64(max(sess.hosts, 1))*releasePerHost)
	var body releaseBody
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeErr(w, http.StatusBadRequest, "%s", bodyErr("release", err))
		return
	}
	if sess.bar == nil {
		writeErr(w, http.StatusConflict, "%v", errNoBarrier)
		return
	}
	if err := sess.bar.release(body); err != nil {
		writeErr(w, http.StatusConflict, "%v", err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// cleanup cleans up the phase and ends the session.
func (s *Server) cleanup(w http.ResponseWriter, r *http.Request) {
	sess := s.session(w, r)
	if sess == nil {
		return
	}
	var body cleanupBody
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil && !errors.Is(err, io.EOF) {
		writeErr(w, http.StatusBadRequest, "%s", bodyErr("cleanup", err))
		return
	}
	clean := s.Agent.Cleanup
	if body.AsFirst {
		clean = s.Agent.CleanupAsFirst
	}
	done := make(chan error, 1)
	s.mu.Lock()
	leaving, why := sess.leaving, sess.stopped
	if !leaving {
		sess.stage = "cleanup"
	}
	s.mu.Unlock()
	if leaving {
		// The agent cleans up on its own, as the controller's answer to
		// its leave line says (leaveBetween).
		writeJSON(w, http.StatusConflict, errorBody{Error: "the agent is stopping: " + why, Stopped: why})
		return
	}
	go func() {
		sess.op.Lock()
		// Cleanup runs to the end even if the controller goes away now:
		// leaving files behind is worse than finishing.
		err := clean(context.WithoutCancel(sess.ctx))
		sess.prepared = false
		sess.op.Unlock()
		done <- err
	}()
	_, _ = s.stream(w, r, sess, streamSpec{done: done, cleanup: true})
}

// abort stops the session's phase and cleans up in the background: the load
// stops as soon as the engine sees its context end, and the files go after.
func (s *Server) abort(sess *session, cause error) {
	s.mu.Lock()
	if s.sess != sess || sess.ending {
		s.mu.Unlock()
		return
	}
	sess.ending = true
	s.mu.Unlock()
	s.logf("run %s: stopping the phase: %v", sess.runID, cause)
	sess.cancel(cause)
	go func() {
		sess.op.Lock()
		if sess.prepared {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			// What this cleanup leaves is kept for the controller to ask
			// (settle): it may come back (it was stopped, SIGSTOP).
			if err := s.Agent.CleanupAlone(ctx); err != nil {
				s.logf("run %s: cleanup: %v", sess.runID, err)
			}
			cancel()
			sess.prepared = false
		}
		sess.op.Unlock()
		s.end(sess, cause)
	}()
}

// end frees the agent for the next session.
func (s *Server) end(sess *session, cause error) {
	s.mu.Lock()
	if s.sess == sess {
		s.sess = nil
		sess.ending = true
		close(sess.ended)
	}
	s.mu.Unlock()
	sess.cancel(cause)
}

// Close stops any phase in progress, cleans up, and waits until the agent is
// free (or ctx ends).
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	sess := s.sess
	s.mu.Unlock()
	if sess == nil {
		return s.unpinAll()
	}
	s.abort(sess, errors.New("the agent is shutting down"))
	select {
	case <-sess.ended:
		return s.unpinAll()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// unpinAll removes the shared areas this agent pinned for runs whose
// controller will not clean up after it: the agent is going away.
func (s *Server) unpinAll() error {
	s.mu.Lock()
	runs := s.runs
	s.runs = nil
	s.mu.Unlock()
	var first error
	for id := range runs {
		if err := removePins(id); err != nil {
			s.logf("run %s: shared area: %v", id, err)
			first = cmp.Or(first, err)
		}
	}
	return first
}

// shiftResult moves every time in a result by d (the agent's clock to the
// controller's and back).
func shiftResult(res *engine.HostResult, d time.Duration) {
	if res == nil || d == 0 {
		return
	}
	ns := int64(d)
	for i := range res.Ops {
		o := &res.Ops[i]
		if o.StartNs != 0 || o.EndNs != 0 {
			o.StartNs += ns
			o.EndNs += ns
		}
		for j := range o.Iterations {
			o.Iterations[j].StartNs += ns
			o.Iterations[j].EndNs += ns
		}
	}
	for i := range res.Series {
		res.Series[i].StartNs += ns
		res.Series[i].EndNs += ns
	}
	if b, err := record.ShiftLatSeconds(res.LatencySeconds, ns); err == nil {
		res.LatencySeconds = b
	} else {
		res.LatencySeconds = nil // unreadable: better absent than at the wrong time
	}
}
