// Package events runs a suite phase's events: at a time into the phase's
// load (or a share of its planned duration), an action - a command on the
// controller or on an agent that allows it, a cache drop, a pause of one
// host's load - with its real times, exit status and output recorded.
// What an event did to the figures is computed afterwards from the
// per-second series (analyze.EventImpacts).
package events

import (
	"fmt"
	"strconv"
	"time"

	"github.com/storbench/storbench/internal/model"
)

// DefaultTimeout bounds an event's action when the suite gives no
// timeout: a command still running then is killed (with its process
// group) and reported, and the phase goes on.
const DefaultTimeout = 60 * time.Second

// Spec is one event as a suite writes it.
type Spec struct {
	// Name labels the event; by default its action ("command 1").
	Name string
	// At is when the event is due from the phase's start; with AfterPct
	// set, it is a share of the phase's planned duration instead.
	At       time.Duration
	AfterPct float64
	// Action is model.EventCommand, EventDropCaches or EventPause.
	Action string
	// Command is run with sh -c (EventCommand).
	Command string
	// Host runs the action on that agent; "" runs it on the controller.
	Host string
	// Pause is how long an EventPause stops the host's load.
	Pause time.Duration
	// Timeout bounds the action (DefaultTimeout when zero).
	Timeout time.Duration
	// Line is the event's line in the suite file.
	Line int
}

// Due is when the event is due from the start of a phase planned to run
// for planned (0: unknown).
func (s Spec) Due(planned time.Duration) time.Duration {
	if s.AfterPct > 0 {
		return time.Duration(float64(planned) * s.AfterPct / 100)
	}
	return s.At
}

// When says the event's time as the suite wrote it: "5s", "after 10%".
func (s Spec) When() string {
	if s.AfterPct > 0 {
		return "after " + strconv.FormatFloat(s.AfterPct, 'f', -1, 64) + "%"
	}
	return s.At.String()
}

// Check refuses an event that cannot happen in a phase planned to run for
// planned (exact: the engine's own duration; else an estimate, which
// refuses nothing): a time at or past the phase's end, a share of a
// duration that is not set. where locates the phase ("suite.yaml:12").
func (s Spec) Check(where string, planned time.Duration, exact bool) error {
	switch {
	case s.AfterPct > 0 && !exact:
		return fmt.Errorf("%s: event %s (line %d): after %s needs a phase of a set duration; this one runs until its work is done: give at: with a time such as 5s", where, s.Name, s.Line, s.When())
	case exact && planned > 0 && s.Due(planned) >= planned:
		return fmt.Errorf("%s: event %s (line %d): at %s is past the phase's end (it runs %s): give a time under %s", where, s.Name, s.Line, s.When(), planned, planned)
	}
	return nil
}

// Describe says what the event does in a line, for --dry-run.
func (s Spec) Describe() string {
	on := "on the controller"
	if s.Host != "" {
		on = "on " + s.Host
	}
	what := ""
	switch s.Action {
	case model.EventCommand:
		what = "run " + strconv.Quote(s.Command)
	case model.EventDropCaches:
		what = "drop caches"
	case model.EventPause:
		what = "pause the load for " + s.Pause.String()
	}
	return fmt.Sprintf("event %q at %s: %s %s (timeout %s)", s.Name, s.When(), what, on, s.Timeout)
}
