// Package sink holds what a run tells as it goes (Sink, and the events it
// hears), apart from the run itself: the packages that listen (the command
// line's text, metrics, the live stream) implement it without importing
// the run that calls them.
package sink

import (
	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
)

// Sink hears what a run does, as it does it: the command line prints it,
// a test records it. Calls come from the run's goroutine, except Progress,
// which the controller calls from one goroutine of its own while a phase
// runs; none may block for long.
type Sink interface {
	// Started says the results folder exists and the first phase is next.
	Started(runID, folder string)
	// PhaseStarted says a phase starts on these hosts.
	PhaseStarted(ph engine.Phase, hosts []string)
	// Progress is the live state of the running phase, about once a second.
	Progress(cluster.Progress)
	// PhaseDone says a phase ended and what it left in the results folder.
	PhaseDone(PhaseDone)
	// Note is anything else worth saying.
	Note(Note)
}

// PhaseDone is a phase that ended.
type PhaseDone struct {
	// Summary is the phase as summary.json records it.
	Summary *results.PhaseSummary
	// Ran says the phase's load ran; when false, preparation failed or the
	// run was interrupted first, and only Summary's error and leftovers
	// say anything.
	Ran bool
	// Hosts are the hosts' results, in agent order.
	Hosts []*model.HostResult
	// HostErrors say why a stopped or lost host ended, by host.
	HostErrors map[string]string
}

// NoteKind says what a Note is about.
type NoteKind int

const (
	// NotePlan is about the plan: a phase skipped, a setting missing.
	NotePlan NoteKind = iota
	// NoteDiagnostic is about how the run goes: ssh starting agents, a
	// report that could not be rendered.
	NoteDiagnostic
)

// Note is a line a run says besides its figures.
type Note struct {
	Kind NoteKind
	Text string
}
