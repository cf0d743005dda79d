package run

import (
	"fmt"
	"strings"

	"github.com/storbench/storbench/internal/cluster"
)

// checkAgentTools refuses, before any load, a phase whose engine runs an
// outside tool (Info.Tool) that one of its hosts' agents lacks: each agent
// says in its hello which tools it found (Info.Tools, a tool not found
// absent). Its Prepare would otherwise fail on that host alone once the
// others had laid out their files, a failed run where the input was bad.
// This machine's own tools were looked for already (check).
func checkAgentTools(p Plan, r *Runner, infos []cluster.Info) error {
	fix := "install it there, or start the agent with --tool %s=PATH"
	if l := p.Agents.Launcher; l != nil {
		fix = "install it on the PATH there: the agents " + l.Flag() + " starts find it there (--tool %s=PATH is an agent's own setting)"
	}
	for i, ph := range p.Phases {
		t := r.Engines.Info(ph.Engine).Tool
		if t == nil {
			continue
		}
		n := len(infos)
		if i < len(p.Labels) && p.Labels[i].Hosts > 0 {
			n = min(n, p.Labels[i].Hosts)
		}
		var lacking []string
		for _, in := range infos[:n] {
			if _, ok := in.Tools[t.Name]; !ok {
				lacking = append(lacking, in.Host)
			}
		}
		if len(lacking) > 0 {
			what := "agent " + lacking[0] + " has"
			if len(lacking) > 1 {
				what = "agents " + fewHosts(lacking) + " have"
			}
			return badInputf("phase %s: %s no %s (engine %s runs it): "+fix, ph.Name, what, t.Name, ph.Engine, t.Name)
		}
	}
	return nil
}

// fewHosts names the first three hosts and counts the rest: a refusal
// stays one line a person reads, whether 4 agents lack a tool or 4,000.
func fewHosts(hosts []string) string {
	if len(hosts) <= 3 {
		return strings.Join(hosts, ", ")
	}
	return strings.Join(hosts[:3], ", ") + fmt.Sprintf(" and %d more", len(hosts)-3)
}
