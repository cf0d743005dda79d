package metrics

import (
	"sync"

	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/sink"
)

// Sink feeds a controller's Registry from the run: every host's latest
// snapshot each second, and each host's result when a phase ends.
type Sink struct {
	Registry *Registry

	mu    sync.Mutex
	runID string
}

var _ sink.Sink = (*Sink)(nil)

// Started notes the run's id, the "run" label of every series.
func (s *Sink) Started(runID, folder string) {
	s.mu.Lock()
	s.runID = runID
	s.mu.Unlock()
}

func (s *Sink) run() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runID
}

// PhaseStarted makes the phase's series on every host, in state prepare.
func (s *Sink) PhaseStarted(ph engine.Phase, hosts []string) {
	for _, h := range hosts {
		s.Registry.SetState(s.run(), ph.Name, h, StatePrepare)
	}
}

// Progress takes in every host's latest snapshot.
func (s *Sink) Progress(p cluster.Progress) {
	id := s.run()
	for _, h := range p.Hosts {
		s.Registry.Snapshot(id, h)
	}
}

// PhaseDone takes in every host's result and the phase's end state.
func (s *Sink) PhaseDone(d sink.PhaseDone) {
	if d.Summary == nil {
		return
	}
	state := EndState(d.Summary.Status)
	id := s.run()
	for _, h := range d.Summary.Hosts {
		s.Registry.SetState(id, d.Summary.Name, h, state)
	}
	for _, res := range d.Hosts {
		s.Registry.Result(id, d.Summary.Name, res.Host, res, state)
	}
}

// Note is not a metric.
func (s *Sink) Note(sink.Note) {}

// EndState is the phase state of a phase that ended with a results status.
func EndState(status string) string {
	switch status {
	case results.StatusCompleted:
		return StateDone
	case results.StatusInterrupted:
		return StateInterrupted
	}
	return StateFailed
}
