package run

import (
	"context"
	"errors"
	"fmt"

	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/engine"
)

// checkResources checks every phase's resources on the hosts it runs on,
// each host answering for its own machine (Controller.CheckResources):
// fio's files against the free space of their file system, all hosts'
// together where they share one, and s3's plan against each host's
// memory. A refusal is bad input, before anything is made; notes say
// what a host could not check (a file system that does not tell its
// free space).
func checkResources(ctx context.Context, p Plan, ctrl *cluster.Controller, runID string) ([]string, error) {
	all := ctrl.Agents
	defer func() { ctrl.Agents = all }()
	hosts := phaseHosts(p, len(all))
	var notes []string
	for i, ph := range p.Phases {
		ctrl.Agents = all[:hosts[i]]
		n, err := ctrl.CheckResources(ctx, runID, ph)
		switch {
		case ctx.Err() != nil:
			return nil, interruptedBeforeRun(ctx)
		case errors.Is(err, engine.ErrUnsupported):
			return nil, badInput(err)
		case err != nil:
			return nil, badInputf("agents: %v", err)
		}
		notes = append(notes, n...)
	}
	return notes, nil
}

// CheckResources checks, as a run would before anything is made, every
// phase's free space and memory on the hosts of p: each agent answers for
// its own machine. It is --dry-run's check of a plan with agents; notes
// say what could not be checked.
func (r *Runner) CheckResources(ctx context.Context, p Plan) (notes []string, err error) {
	slotted, _, err := r.Engines.WithSlots(p.Phases, slotsOf(p.Agents.Hosts))
	if err != nil {
		return nil, badInput(err)
	}
	p.Phases = slotted
	set, err := r.agents(ctx, p)
	if err != nil {
		return nil, err
	}
	defer set.close()
	if p.Phases, err = r.Engines.Link(p.Phases, phaseHosts(p, len(set.agents))); err != nil {
		return nil, badInput(err)
	}
	ctrl := &cluster.Controller{Agents: set.agents, Engines: r.Engines, Name: hostname(), All: set.agents,
		MaxClockOffset: p.Agents.MaxClockOffset}
	if _, err := ctrl.Connect(ctx); err != nil {
		if !errors.Is(err, cluster.ErrLost) {
			return nil, badInputf("agents: %v", err) // an agent answered and refused
		}
		// A dry run plans offline too (a chart's Job checked before its
		// agents exist): hosts it cannot reach go unchecked, and it says
		// so; the run itself refuses them.
		return []string{fmt.Sprintf("free space and memory not checked: agents: %v", err)}, nil
	}
	return checkResources(ctx, p, ctrl, "")
}
