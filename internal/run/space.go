package run

import "github.com/storbench/storbench/internal/engine"

// spaceNotes warns, one line per phase, of phases run on this machine
// whose directory's file system does not tell its free space (statfs
// reports no blocks): their files are not checked against it. Agents
// check their own file systems when preparing. A refusal is not the
// notes' to give: the phase's preparation refuses it.
func (r *Runner) spaceNotes(p Plan, set *agentSet) []string {
	if set.local == nil {
		return nil
	}
	var notes []string
	for _, ph := range p.Phases {
		if n, err := r.Engines.CheckResources([]engine.Phase{ph}); err == nil {
			notes = append(notes, n...)
		}
	}
	return notes
}
