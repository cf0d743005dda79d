package cli

import (
	"context"
	"errors"

	"github.com/storbench/storbench/internal/exit"
	"github.com/storbench/storbench/internal/run"
	"github.com/storbench/storbench/internal/suite"
)

// dryRunResources refuses what the run would refuse before anything is
// made, in the same line: fio files past the free space of their
// directory (the hosts that share a file system counted together), s3
// objects past the memory available. Each host answers for its own
// machine: this one's in-process agent, or each agent's (its directory
// as it has it, its memory). notes say what could not be checked (a file
// system that does not tell its free space). Agents a launcher would
// start are not started for a dry run: a note says so.
func dryRunResources(ctx context.Context, st *State, o RunOptions, s *suite.Suite, x *suite.Expanded) (notes []string, err error) {
	agents, err := agentsOf(o.Agents, s).runAgents(st, s.Agents)
	if err != nil {
		return nil, err
	}
	if agents.Launcher != nil {
		return []string{"free space and memory not checked: the hosts' agents start with the run (--ssh, --launcher)"}, nil
	}
	r := &run.Runner{Engines: st.Engines, Version: version(), Now: st.Now}
	notes, err = r.CheckResources(ctx, run.Plan{Name: s.Name, Phases: x.Phases, Labels: x.Labels, Dirs: x.Dirs, Agents: agents, Tools: o.Tools, AllowExec: o.AllowExec})
	var ee *exit.Error
	if err != nil && !errors.As(err, &ee) {
		err = asUsage(err)
	}
	return notes, err
}
