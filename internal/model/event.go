package model

import "time"

// Event actions: what an event of a phase does.
const (
	// EventCommand runs a command (sh -c) on the controller, or on a named
	// agent that was started with --allow-events.
	EventCommand = "command"
	// EventDropCaches syncs and drops the page cache on the controller's
	// machine or a named host (root only).
	EventDropCaches = "drop-caches"
	// EventPause stops one host's load for a while: its engine starts no
	// new operation until the pause ends.
	EventPause = "pause"
)

// PhaseEvent is one event of a phase as it happened: what was planned,
// when it really ran, how it ended and, after the phase, what it did to
// the figures. It is kept in the phase's events.json and in summary.json.
type PhaseEvent struct {
	// Name labels the event on charts and in text ("kill brick").
	Name string `json:"name"`
	// Action is EventCommand, EventDropCaches or EventPause.
	Action string `json:"action"`
	// Host is where the action ran: an agent's name, or "" for the
	// controller.
	Host string `json:"host,omitempty"`
	// Command is the command line of a command event, as written.
	Command string `json:"command,omitempty"`
	// PauseS is how long a pause event stops the host's load, in seconds.
	PauseS float64 `json:"pause_s,omitempty"`
	// PlannedS is when the event was due, in seconds from the phase's
	// start (the common start of its load).
	PlannedS float64 `json:"planned_s"`
	// TimeoutS bounds the action, in seconds.
	TimeoutS float64 `json:"timeout_s"`
	// Start and End are when the action really started and ended (absent
	// when it never ran); StartS and EndS the same in seconds from the
	// phase's start.
	Start  *time.Time `json:"start,omitempty"`
	End    *time.Time `json:"end,omitempty"`
	StartS *float64   `json:"start_s,omitempty"`
	EndS   *float64   `json:"end_s,omitempty"`
	// Exit is a command's exit status (absent when it did not exit on its
	// own: not run, timed out, killed by a signal).
	Exit *int `json:"exit,omitempty"`
	// Output is the command's standard output and error, the first
	// EventOutputMax bytes (Truncated says more was cut).
	Output    string `json:"output,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
	// Error says why the action failed or did not run ("timed out after
	// 30s", "not run: the phase ended at 7.9s"); the phase went on.
	Error string `json:"error,omitempty"`
	// Impact is what the event did to each operation's per-second figure
	// (analyze.EventImpacts), for operations running on both sides of it.
	Impact []EventImpact `json:"impact,omitempty"`
}

// EventOutputMax is how much of an event command's output is kept, in
// bytes.
const EventOutputMax = 4096

// EventImpact is what an event did to one operation's per-second figure,
// all hosts added.
type EventImpact struct {
	Op string `json:"op"`
	// Unit is the figure's unit: "MiB/s" for operations that move data,
	// else "ops/s".
	Unit string `json:"unit"`
	// EffectS is when the event took effect, in seconds from the phase's
	// first operation (the origin of its per-second series, which
	// LowestAtS counts from too): a command's or a cache drop's end, a
	// pause's start. Everything below is measured from it; absent in
	// results analysed before it was kept (they measured from the start).
	EffectS *float64 `json:"effect_s,omitempty"`
	// Before is the median of the phase's full seconds before the event
	// took effect that no earlier event disturbed (from its effect to its
	// recovery): a few unusually fast seconds do not move it.
	Before float64 `json:"before"`
	// Lowest is the lowest per-second figure in the event's window, from
	// its effect to the next event's (or the phase's end), and LowestAtS
	// its second, from the phase's first operation.
	Lowest    float64 `json:"lowest"`
	LowestAtS float64 `json:"lowest_at_s"`
	// BelowS is how many full seconds of the event's window the figure
	// was under 90% of Before.
	BelowS float64 `json:"below_s"`
	// RecoverS is the time from the event's effect until the figure, after
	// falling under 90% of Before in its window, was back at 90% or more
	// for three seconds in a row (or every second left in the phase),
	// after the next event took effect if need be (Note then says so);
	// absent when it never recovered (NotRecovered says so) or never fell
	// under 90% (Note says so).
	RecoverS     *float64 `json:"recover_s,omitempty"`
	NotRecovered bool     `json:"not_recovered,omitempty"`
	// Errors are the operation's failed requests from the event's effect
	// to its recovery or the end of its window, whichever came first.
	Errors uint64 `json:"errors"`
	// Note says what the figures mean where one is absent.
	Note string `json:"note,omitempty"`
}
