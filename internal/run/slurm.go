package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/cluster"
)

// errStepEnded is why a run stops when its Slurm job step ends under it.
var errStepEnded = errors.New("the Slurm job step running the agents ended (scancel, the job's time limit or a node failure)")

// slurmAgents starts one agent per task of the plan's Slurm allocation with
// srun and returns them; close stops them all. It refuses, before srun
// runs, an allocation with fewer tasks than a phase's hosts, and, before
// any load, a node whose agent did not start (unless AllowPartial).
func (r *Runner) slurmAgents(ctx context.Context, p Plan) (*agentSet, error) {
	alloc := *p.Agents.Slurm
	for i, l := range p.Labels {
		if l.Hosts > alloc.Total() {
			return nil, badInputf("phase %s wants %d hosts, but Slurm job %s has %d tasks (one agent each): ask salloc or sbatch for at least %d tasks (-n %d)",
				p.Phases[i].Name, l.Hosts, alloc.JobID, alloc.Total(), l.Hosts, l.Hosts)
		}
	}
	self := r.Self
	if self == "" {
		var err error
		if self, err = os.Executable(); err != nil {
			return nil, badInputf("--launcher slurm: cannot find this storbench binary: %v", err)
		}
	}
	l := &cluster.SlurmLauncher{
		Binary: self, Alloc: alloc, Credentials: p.Credentials,
		Logf: func(format string, args ...any) {
			r.Sink.Note(Note{Kind: NoteDiagnostic, Text: "slurm: " + fmt.Sprintf(format, args...)})
		},
	}
	step, err := l.Start(ctx, oneRunToken())
	if err != nil {
		if ctx.Err() != nil {
			return nil, interruptedBeforeRun()
		}
		return nil, badInput(err)
	}
	if len(step.Failed) > 0 {
		msg := "--launcher slurm: " + strings.Join(step.Failed, "; ")
		if !p.Agents.AllowPartial {
			step.Shutdown()
			return nil, badInputf("%s: the run was refused before any load (--allow-partial runs on the %d of %d agents that started)", msg, len(step.Agents), alloc.Total())
		}
		r.Sink.Note(Note{Kind: NotePlan, Text: fmt.Sprintf("%s; running on %d of %d agents (--allow-partial)", msg, len(step.Agents), alloc.Total())})
	}
	set := &agentSet{remote: true, close: step.Shutdown, ended: step.Done()}
	hn := hostname()
	for _, a := range step.Agents {
		a.Controller, a.DropCaches = hn, p.Agents.DropCaches
		set.agents = append(set.agents, a)
	}
	return set, nil
}

// untilEnded returns ctx, cancelled with errStepEnded when the set's agents
// go away on their own (the run then ends as interrupted), and its
// cancel, which takes the cause.
func untilEnded(ctx context.Context, set *agentSet) (context.Context, context.CancelCauseFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	if set.ended == nil {
		return ctx, cancel
	}
	go func() {
		select {
		case <-set.ended:
			cancel(errStepEnded)
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// stepEnded reports that the set's agents went away on their own. When
// every agent stopped (scancel sends them SIGTERM: they return what they
// measured, clean up and exit) the phase may end before the step does: it
// then waits up to five seconds for the step.
func stepEnded(set *agentSet, lost int) bool {
	if set.ended == nil {
		return false
	}
	if lost >= len(set.agents) {
		select {
		case <-set.ended:
		case <-time.After(5 * time.Second):
		}
	}
	select {
	case <-set.ended:
		return true
	default:
		return false
	}
}
