package run

import "github.com/storbench/storbench/internal/sink"

// The run's listener and its events, from package sink (so listeners need
// not import run).
type (
	// Sink hears what a run does (sink.Sink).
	Sink = sink.Sink
	// PhaseDone is a phase that ended (sink.PhaseDone).
	PhaseDone = sink.PhaseDone
	// NoteKind says what a Note is about (sink.NoteKind).
	NoteKind = sink.NoteKind
	// Note is a line a run says besides its figures (sink.Note).
	Note = sink.Note
)

// The kinds of Note.
const (
	NotePlan       = sink.NotePlan
	NoteDiagnostic = sink.NoteDiagnostic
)
