package run

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/engine/md"
	"github.com/storbench/storbench/internal/hosts"
	"github.com/storbench/storbench/internal/model"
)

// withSlots gives the md phases that set no workers the slots of the host
// files as workers per host, as mpiexec starts one rank per slot. Every
// host receives the same phase, so the slots must be equal on all hosts;
// where no phase takes them, they are only noted.
func withSlots(phases []engine.Phase, entries []hosts.Entry) ([]engine.Phase, []string, error) {
	given := 0
	for _, e := range entries {
		given = max(given, e.Slots)
	}
	if given == 0 {
		return phases, nil, nil
	}
	var notes []string
	out := append([]engine.Phase(nil), phases...)
	taken, mdPhases := false, 0
	for i, ph := range phases {
		if ph.Engine != model.EngineMD {
			continue
		}
		mdPhases++
		// json.Number keeps every number as written (a seed above 2^53).
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader(ph.Params))
		dec.UseNumber()
		if dec.Decode(&m) != nil {
			continue // the engine's own check names what is wrong
		}
		if w, set := m["workers"]; set && fmt.Sprint(w) != "0" {
			notes = append(notes, fmt.Sprintf("phase %s sets workers (-t) %v; the host files' slots (%d) are not used for it", ph.Name, w, given))
			continue
		}
		slots, err := hosts.EqualSlots(entries)
		if err != nil {
			return nil, nil, badInputf("%v, or give md's workers with -t (workers: in a suite)", err)
		}
		if slots > md.MaxWorkers {
			return nil, nil, badInputf("the host files give %d slots per host, but md runs at most %d workers per host: give fewer slots, or -t", slots, md.MaxWorkers)
		}
		m["workers"] = slots
		b, err := json.Marshal(m)
		if err != nil {
			return nil, nil, err
		}
		out[i].Params = b
		taken = true
	}
	switch {
	case taken:
		notes = append(notes, fmt.Sprintf("md phases without -t run %d workers per host: the host files' slots", given))
	case mdPhases == 0:
		notes = append(notes, fmt.Sprintf("the host files' slots (%d) set md workers per host; this run has no md phase", given))
	}
	return out, notes, nil
}
