package cluster

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/storbench/storbench/internal/engine"
)

// RemovalLimit bounds how long an agent waits for a phase's files to be
// removed in the background: past it, what is still there is reported as
// left behind and the removal goes on by itself.
const RemovalLimit = 10 * time.Minute

// Removal is the cleanup of one phase's files on one host, done in the
// background (engine.Cleaner) while what follows was prepared,
// and awaited before the next phase's start: when it ran, in the agent's
// clock shifted to the controller's, and what it left.
type Removal struct {
	RunID string `json:"run_id"`
	Phase string `json:"phase"`
	Host  string `json:"host"`
	// StartNs and EndNs (Unix ns) bound the removal; EndNs is 0 when it
	// did not end within RemovalLimit (Leftovers then say so).
	StartNs int64 `json:"start_ns"`
	EndNs   int64 `json:"end_ns,omitempty"`
	// Leftovers is what the removal could not remove.
	Leftovers []engine.Leftover `json:"leftovers,omitempty"`
}

// removals are an agent's background removals: those going on, and
// those awaited whose record the controller has not collected yet.
type removals struct {
	mu      sync.Mutex
	pending []*pendingRemoval
	done    []Removal
	// settling serialises awaits, so that a second caller returns only
	// once the removals the first took have ended.
	settling sync.Mutex
}

type pendingRemoval struct {
	rec  Removal
	wait func(ctx context.Context) error
}

// start starts p's cleanup in the background when its engine can, and
// reports whether it did; the caller cleans up at once otherwise.
func (r *removals) start(p engine.Prepared, runID, phase, host string) bool {
	bc, ok := p.(engine.Cleaner)
	if !ok {
		return false
	}
	start := time.Now()
	wait, ok := bc.StartCleanup()
	if !ok {
		return false
	}
	r.mu.Lock()
	r.pending = append(r.pending, &pendingRemoval{rec: Removal{RunID: runID, Phase: phase, Host: host, StartNs: start.UnixNano()}, wait: wait})
	r.mu.Unlock()
	return true
}

// settle waits until every removal going on has ended, each for up to
// RemovalLimit whatever ctx does (leaving files behind is worse than
// waiting), and keeps their records for take.
func (r *removals) settle(ctx context.Context) {
	r.settling.Lock()
	defer r.settling.Unlock()
	r.mu.Lock()
	pend := r.pending
	r.pending = nil
	r.mu.Unlock()
	if len(pend) == 0 {
		return
	}
	recs := make([]Removal, len(pend))
	var wg sync.WaitGroup
	for i, p := range pend {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), RemovalLimit)
			defer cancel()
			err := p.wait(wctx)
			rec := p.rec
			if wctx.Err() == nil {
				rec.EndNs = time.Now().UnixNano()
			}
			if err != nil {
				rec.Leftovers = engine.Leftovers(rec.Host, err)
			}
			recs[i] = rec
		}()
	}
	wg.Wait()
	r.mu.Lock()
	r.done = append(r.done, recs...)
	r.mu.Unlock()
}

// keep puts back records a caller could not hand on.
func (r *removals) keep(recs []Removal) {
	r.mu.Lock()
	r.done = append(r.done, recs...)
	r.mu.Unlock()
}

// take returns the records of the removals awaited so far and forgets
// them.
func (r *removals) take() []Removal {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.done
	r.done = nil
	return out
}

// Settle waits until this agent's background removals have ended and
// returns their records, those of earlier calls' waits included.
func (a *LocalAgent) Settle(ctx context.Context) []Removal {
	a.bg.settle(ctx)
	return a.bg.take()
}

// settler is an agent that removes phases' files in the background: the
// controller awaits them before a phase starts and at the end of a run,
// and asks it what an aborted phase left.
type settler interface {
	Settle(ctx context.Context, runID string) ([]Removal, error)
}

type localSettler struct{ *LocalAgent }

func (l localSettler) Settle(ctx context.Context, runID string) ([]Removal, error) {
	return l.LocalAgent.Settle(ctx), nil
}

// settlerOf returns a's settler, if it has one.
func settlerOf(a Agent) (settler, bool) {
	switch a := a.(type) {
	case *LocalAgent:
		return localSettler{a}, true
	case settler:
		return a, true
	}
	return nil, false
}

// settleBody is the body of POST /v1/settle.
type settleBody struct {
	RunID string `json:"run_id"`
}

// settle awaits the agent's background removals, ticking meanwhile, and
// answers with the records of the controller's run; no session is needed
// (the phase's ended when its cleanup started). Records of another run
// (a controller that went away) go to the log.
func (s *Server) settle(w http.ResponseWriter, r *http.Request) {
	var body settleBody
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeErr(w, http.StatusBadRequest, "%s", bodyErr("settle", err))
		return
	}
	done := make(chan []Removal, 1)
	leaving := s.leavingEnded()
	go func() {
		// An agent that cleans up on its own, told to stop between
		// stages, keeps its record when that cleanup ends: asked before,
		// it had none, and the controller reported the phase's files left.
		if leaving != nil {
			<-leaving
		}
		done <- s.Agent.Settle(context.Background())
	}()
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	// The headers go now: a long removal must not look like a silent agent.
	_ = rc.Flush()
	enc := json.NewEncoder(w)
	tick := time.NewTicker(tickEvery)
	defer tick.Stop()
	for {
		select {
		case recs := <-done:
			var mine []Removal
			for _, rec := range recs {
				// In the agent's clock, as every time it reports
				// (ClockSkew: a test's clock that is off).
				rec.StartNs += int64(s.ClockSkew)
				if rec.EndNs != 0 {
					rec.EndNs += int64(s.ClockSkew)
				}
				if rec.RunID == body.RunID {
					mine = append(mine, rec)
				} else if len(rec.Leftovers) > 0 {
					s.logf("run %s: phase %s left %d item(s) behind", rec.RunID, rec.Phase, len(rec.Leftovers))
				}
			}
			_ = enc.Encode(line{Done: true, Removals: mine})
			_ = rc.Flush()
			return
		case <-tick.C:
			if enc.Encode(line{Tick: true}) != nil || rc.Flush() != nil {
				// The records stay for the next caller.
				go func() { s.Agent.bg.keep(<-done) }()
				return
			}
		case <-r.Context().Done():
			go func() { s.Agent.bg.keep(<-done) }()
			return
		}
	}
}

// Settle asks the agent to finish its background removals and returns the
// records of run runID's.
func (a *RemoteAgent) Settle(ctx context.Context, runID string) ([]Removal, error) {
	a.mu.Lock()
	off := a.offset
	a.mu.Unlock()
	l, err := a.stream(ctx, "settle", settleBody{RunID: runID}, nil, nil)
	if err != nil {
		return nil, err
	}
	for i := range l.Removals {
		r := &l.Removals[i]
		r.StartNs -= int64(off)
		if r.EndNs != 0 {
			r.EndNs -= int64(off)
		}
	}
	return l.Removals, nil
}

// Settle waits, on every agent given that is not lost, until the removals
// of earlier phases' files have ended, and returns their records: the
// controller calls it before a phase's start, so no removal runs in a
// measured window, and at the end of the run.
func (c *Controller) Settle(ctx context.Context, runID string, agents []Agent) []Removal {
	lost := c.Lost()
	recs := make([][]Removal, len(agents))
	c.fanOut(ctx, agents, func(ctx context.Context, i int, a Agent) {
		if _, gone := lost[a.Name()]; gone {
			return
		}
		if s, ok := settlerOf(a); ok {
			recs[i], _ = s.Settle(ctx, runID)
		}
	})
	// With those CheckResources awaited, which are not told yet.
	c.mu.Lock()
	out := c.awaited
	c.awaited = nil
	c.mu.Unlock()
	for _, r := range recs {
		out = append(out, r...)
	}
	return out
}

// askLeft asks an agent whose phase ended without the controller (it lost
// the controller's heartbeats and cleaned up on its own) what that cleanup
// left of phase: ok is false when the agent cannot tell (it does not
// answer), and the caller falls back on where the engine puts things.
func (c *Controller) askLeft(a Agent, runID, phase string) (left []engine.Leftover, ok bool) {
	s, ok := settlerOf(a)
	if !ok {
		return nil, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), RemovalLimit)
	defer cancel()
	recs, err := s.Settle(ctx, runID)
	if err != nil {
		return nil, false
	}
	found := false
	for _, r := range recs {
		if r.RunID == runID && r.Phase == phase {
			found = true
			left = append(left, r.Leftovers...)
		}
	}
	return left, found
}

// leavingEnded is closed when the session the agent leaves on its own
// (leaveBetween) has ended; nil when it leaves none.
func (s *Server) leavingEnded() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sess != nil && s.sess.leaving {
		return s.sess.ended
	}
	return nil
}

// CleanupAlone cleans up a phase the controller is no longer there for
// (its heartbeats stopped, or the agent is stopping): as Cleanup, but
// what the cleanup left, nothing included, is kept for a controller that
// comes back to ask (Settle), so it reports only what is really left.
func (a *LocalAgent) CleanupAlone(ctx context.Context) error {
	return a.cleanupAlone(ctx, nil)
}

// cleanupAlone is CleanupAlone; leaving, if set, cleans up an
// engine.Cleaner's phase instead, at once (LocalAgent.cleanup).
func (a *LocalAgent) cleanupAlone(ctx context.Context, leaving func(engine.Cleaner) error) error {
	a.mu.Lock()
	runID, phase := a.req.RunID, a.req.Phase.Name
	host := a.hostName()
	a.mu.Unlock()
	start := time.Now()
	bg, err := a.cleanup(ctx, leaving)
	if !bg && phase != "" {
		rec := Removal{RunID: runID, Phase: phase, Host: host, StartNs: start.UnixNano(), EndNs: time.Now().UnixNano()}
		if err != nil {
			rec.Leftovers = engine.Leftovers(host, err)
		}
		a.bg.keep([]Removal{rec})
	}
	return err
}

// withRemoved awaits the agent's background removals and adds to left
// what the removal of run runID's phase left; records of other phases
// stay for the controller.
func withRemoved(ctx context.Context, left error, a *LocalAgent, runID, phase string) error {
	var items []engine.Leftover
	var others []Removal
	for _, r := range a.Settle(ctx) {
		if r.RunID == runID && r.Phase == phase {
			items = append(items, r.Leftovers...)
		} else {
			others = append(others, r)
		}
	}
	a.bg.keep(others)
	if len(items) == 0 {
		return left
	}
	if _, had := engine.SplitLeftovers(left); len(had) > 0 {
		items = append(had, items...)
	}
	return &engine.LeftoverError{Items: items}
}
