package run

import (
	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/engine"
)

// FanOut is a Sink that tells every one of its sinks, in order: the text
// of the command line, the --live stream, the controller's metrics.
type FanOut []Sink

var _ Sink = FanOut(nil)

// Started tells every sink.
func (f FanOut) Started(runID, folder string) {
	for _, s := range f {
		s.Started(runID, folder)
	}
}

// PhaseStarted tells every sink.
func (f FanOut) PhaseStarted(ph engine.Phase, hosts []string) {
	for _, s := range f {
		s.PhaseStarted(ph, hosts)
	}
}

// Progress tells every sink.
func (f FanOut) Progress(p cluster.Progress) {
	for _, s := range f {
		s.Progress(p)
	}
}

// PhaseDone tells every sink.
func (f FanOut) PhaseDone(d PhaseDone) {
	for _, s := range f {
		s.PhaseDone(d)
	}
}

// Note tells every sink.
func (f FanOut) Note(n Note) {
	for _, s := range f {
		s.Note(n)
	}
}
