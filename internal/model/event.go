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
	// Before is the mean of the full seconds of the phase before the
	// event started.
	Before float64 `json:"before"`
	// Lowest is the lowest per-second figure from the event's start to
	// the phase's end, and LowestAtS its second, from the phase's start.
	Lowest    float64 `json:"lowest"`
	LowestAtS float64 `json:"lowest_at_s"`
	// BelowS is how many seconds after the event's start the figure was
	// under 90% of Before.
	BelowS float64 `json:"below_s"`
	// RecoverS is the time from the event's start until the figure, after
	// falling under 90% of Before, was back at 90% or more for three
	// seconds in a row (or every second left in the phase); absent when it
	// never recovered (NotRecovered says so) or never fell under 90%
	// (Note says so).
	RecoverS     *float64 `json:"recover_s,omitempty"`
	NotRecovered bool     `json:"not_recovered,omitempty"`
	// Errors are the operation's failed requests from the event's start
	// to its recovery (to the phase's end when it never recovered).
	Errors uint64 `json:"errors"`
	// Note says what the figures mean where one is absent.
	Note string `json:"note,omitempty"`
}
