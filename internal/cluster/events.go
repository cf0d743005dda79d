package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/events"
	"github.com/storbench/storbench/internal/model"
)

// EventAgent is an agent that runs a phase's event actions (POST
// /v1/event): commands only when it was started allowing them
// (--allow-events), storbench's own actions (drop caches, pause) always.
type EventAgent interface {
	Event(ctx context.Context, a events.Action) events.Outcome
}

var (
	_ EventAgent = (*LocalAgent)(nil)
	_ EventAgent = (*RemoteAgent)(nil)
)

// ErrEventsRefused says an agent was not started allowing event commands.
var ErrEventsRefused = errors.New("this agent does not run event commands: start it with storbench agent --allow-events")

// Act runs an action on this machine: a command (when allow says so), a
// cache drop. A pause needs a running phase and is the agent's own
// (LocalAgent.Event).
func Act(ctx context.Context, a events.Action, allow bool) events.Outcome {
	switch a.Kind {
	case model.EventCommand:
		if !allow {
			return events.Failed(ErrEventsRefused)
		}
		return events.RunCommand(ctx, a.Command, a.Timeout(), a.Env)
	case model.EventDropCaches:
		if err := DropCaches(); err != nil {
			return events.Failed(err)
		}
		return events.Outcome{}
	}
	return events.Failed(fmt.Errorf("unknown event action %q", a.Kind))
}

// Event runs an event's action on this agent's machine, or pauses the
// load of its running phase.
func (a *LocalAgent) Event(ctx context.Context, act events.Action) events.Outcome {
	if act.Kind != model.EventPause {
		return Act(ctx, act, a.AllowEvents)
	}
	a.mu.Lock()
	p := a.cur
	a.mu.Unlock()
	ps, ok := p.(engine.Pauser)
	if !ok {
		return events.Failed(errors.New("this phase's engine cannot pause its load"))
	}
	began := time.Now()
	if err := ps.Pause(ctx, time.Duration(act.PauseNs)); err != nil {
		return events.Failed(err)
	}
	return events.Outcome{StartNs: began.UnixNano(), EndNs: time.Now().UnixNano()}
}

// Event asks the remote agent to run an event's action; the answer comes
// when the action ended (the agent bounds it by its timeout).
func (a *RemoteAgent) Event(ctx context.Context, act events.Action) events.Outcome {
	ctx, cancel := context.WithTimeout(ctx, act.Timeout()+max(time.Duration(act.PauseNs), 0)+10*time.Second)
	defer cancel()
	req, err := a.request(ctx, http.MethodPost, "event", act)
	if err != nil {
		return events.Failed(err)
	}
	resp, err := a.do(req, false)
	if err != nil {
		return events.Failed(err)
	}
	defer resp.Body.Close()
	var o events.Outcome
	if err := decodeAnswer(resp.Body, &o); err != nil {
		return events.Failed(fmt.Errorf("%s: no answer to the event: %v", a.Addr, err))
	}
	// In the agent's clock: in the controller's, as its results are.
	a.mu.Lock()
	off := a.offset
	a.mu.Unlock()
	o.Shift(-off)
	return o
}

// event serves POST /v1/event: the action of an event of the phase this
// controller holds the agent for. The headers go out at once, so a long
// action is not taken for a silent agent.
func (s *Server) event(w http.ResponseWriter, r *http.Request) {
	var act events.Action
	sess := s.sessionBody(w, r, "event", &act)
	if sess == nil {
		return
	}
	what := act.Kind
	if act.Kind == model.EventCommand {
		what = fmt.Sprintf("command %q", act.Command)
	}
	s.logf("run %s: event: %s", sess.runID, what)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	o := s.Agent.Event(r.Context(), act)
	o.Shift(s.ClockSkew)
	if o.Error != "" {
		s.logf("run %s: event %s: %s", sess.runID, what, o.Error)
	}
	_ = json.NewEncoder(w).Encode(o)
}
