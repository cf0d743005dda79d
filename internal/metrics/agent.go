package metrics

import (
	"context"
	"errors"

	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/engine"
)

// Agent feeds an agent's Registry from its server: each phase it
// prepares, the snapshots its engine sends, and the result it returns.
type Agent struct {
	Registry *Registry
}

var _ cluster.Watcher = Agent{}

// Prepare makes the phase's series, in state prepare.
func (a Agent) Prepare(runID, phase, host string) {
	a.Registry.SetState(runID, phase, host, StatePrepare)
}

// Snapshot takes in a snapshot.
func (a Agent) Snapshot(runID string, s engine.Snapshot) { a.Registry.Snapshot(runID, s) }

// Ended takes in the phase's result and how it ended.
func (a Agent) Ended(runID, phase, host string, res *engine.HostResult, err error) {
	state := StateDone
	switch {
	case errors.Is(err, engine.ErrInterrupted), errors.Is(err, context.Canceled), errors.Is(err, cluster.ErrStopped):
		state = StateInterrupted
	case err != nil:
		state = StateFailed
	}
	a.Registry.Result(runID, phase, host, res, state)
}
