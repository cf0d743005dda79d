package cli

import (
	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/suite"
)

// checkLocalEventHosts refuses --allow-events where the run starts no
// agent (it would grant nothing), and, for a run on this machine alone
// (no agents), an event that names another host: the run would refuse it
// once connected, and a dry run, which contacts nothing, says so too.
// With agents, the run checks the names they answer with.
func checkLocalEventHosts(o RunOptions, s *suite.Suite, x *suite.Expanded) error {
	if o.AllowEvents && !o.Agents.SSH && o.Agents.Launcher == "" {
		return usageErr("--allow-events is for the agents this run starts (--ssh, --launcher); an agent started apart allows event commands with its own flag: storbench agent --allow-events")
	}
	if o.Agents.remote() || len(s.Agents) > 0 {
		return nil
	}
	self := cluster.HostName(hostname())
	for i, l := range x.Labels {
		for _, e := range l.Events {
			if e.Host != "" && e.Host != self {
				return usageErr("phase %s: event %s (line %d): host %s is not one of the run's agents (%s, this machine: the suite names no agents)",
					x.Phases[i].Name, e.Name, e.Line, e.Host, self)
			}
		}
	}
	return nil
}
