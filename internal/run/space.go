package run

import (
	"github.com/storbench/storbench/internal/engine/fio"
	"github.com/storbench/storbench/internal/model"
)

// spaceNotes warns, one line per phase, of fio phases run on this machine
// whose directory's file system does not tell its free space (statfs
// reports no blocks): their files are not checked against it. Agents
// check their own file systems when preparing.
func spaceNotes(p Plan, set *agentSet) []string {
	if set.local == nil {
		return nil
	}
	var notes []string
	for _, ph := range p.Phases {
		if ph.Engine != model.EngineFio {
			continue
		}
		if note, _ := fio.CheckSpace(ph, 1); note != "" {
			notes = append(notes, note)
		}
	}
	return notes
}
