package events

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/storbench/storbench/internal/model"
)

// Schedule is a phase's events on their way: each waits for its time,
// runs its action, and is recorded.
type Schedule struct {
	start   time.Time
	ended   chan struct{}
	endOnce sync.Once
	endAt   time.Time
	wg      sync.WaitGroup
	mu      sync.Mutex
	recs    []model.PhaseEvent
}

// Hosts finds the executor of a named host; ok is false for a name the
// phase does not run on.
type Hosts func(name string) (Executor, bool)

// Start schedules specs from start (the common start of the phase's
// load), planned being the phase's planned duration (for after: shares).
// Actions without a host run through local, those with one through the
// host's executor. env is given to every command. Stop ends it.
func Start(ctx context.Context, specs []Spec, planned time.Duration, start time.Time, local Executor, hosts Hosts, env []string) *Schedule {
	s := &Schedule{start: start, ended: make(chan struct{}), recs: make([]model.PhaseEvent, len(specs))}
	for i, sp := range specs {
		due := sp.Due(planned)
		s.recs[i] = model.PhaseEvent{Name: sp.Name, Action: sp.Action, Host: sp.Host, Command: sp.Command,
			PauseS: sp.Pause.Seconds(), PlannedS: due.Seconds(), TimeoutS: sp.Timeout.Seconds()}
		ex, ok := local, true
		if sp.Host != "" {
			ex, ok = hosts(sp.Host)
		}
		if !ok || ex == nil {
			s.recs[i].Error = "not run: host " + sp.Host + " does not run this phase"
			continue
		}
		a := Action{Kind: sp.Action, Command: sp.Command, TimeoutNs: int64(sp.Timeout), PauseNs: int64(sp.Pause),
			Env: append(slices.Clip(env), "STORBENCH_EVENT="+sp.Name)}
		s.wg.Add(1)
		go s.one(ctx, i, start.Add(due), ex, a)
	}
	return s
}

// one waits for the event's time, unless the phase ends first, and runs it.
func (s *Schedule) one(ctx context.Context, i int, at time.Time, ex Executor, a Action) {
	defer s.wg.Done()
	t := time.NewTimer(time.Until(at))
	defer t.Stop()
	select {
	case <-t.C:
	case <-s.ended:
		s.mu.Lock()
		s.recs[i].Error = fmt.Sprintf("not run: the phase's load ended at %.1fs, before %.1fs", s.endAt.Sub(s.start).Seconds(), s.recs[i].PlannedS)
		s.mu.Unlock()
		return
	case <-ctx.Done():
		s.mu.Lock()
		s.recs[i].Error = "not run: the run was interrupted"
		s.mu.Unlock()
		return
	}
	began := time.Now()
	o := ex(ctx, a)
	done := time.Now()
	// The action's own times, which lie within the request's: an answer
	// that puts them outside (a clock offset misread, a malformed answer)
	// is held to it.
	if own0, own1 := max(o.StartNs, began.UnixNano()), min(o.EndNs, done.UnixNano()); o.StartNs != 0 && own0 <= own1 {
		began, done = time.Unix(0, own0), time.Unix(0, own1)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r := &s.recs[i]
	r.Start, r.End = &began, &done
	st, en := began.Sub(s.start).Seconds(), done.Sub(s.start).Seconds()
	r.StartS, r.EndS = &st, &en
	r.Exit, r.Output, r.Truncated, r.Error = o.Exit, o.Output, o.Truncated, o.Error
}

// Stop says the phase's load ended: events not yet due are recorded as not
// run; it waits for the actions running now (each bounded by its
// timeout) and returns every event's record, in the suite's order.
func (s *Schedule) Stop() []model.PhaseEvent {
	if s == nil {
		return nil
	}
	s.endOnce.Do(func() {
		s.mu.Lock()
		s.endAt = time.Now()
		s.mu.Unlock()
		close(s.ended)
	})
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]model.PhaseEvent(nil), s.recs...)
}
