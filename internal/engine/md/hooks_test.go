package md

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/hosts"
)

// slotsOf is the slots of entries, as the run gives them.
func slotsOf(entries []hosts.Entry) engine.Slots {
	equal, differ := hosts.EqualSlots(entries)
	return engine.Slots{Most: hosts.MostSlots(entries), Equal: equal, Differ: differ}
}

// Slots matter to md phases that set no workers; where none needs them,
// unequal slots are no error. Through the registry, as the run calls it.
func TestWithSlots(t *testing.T) {
	reg := engine.Registry{"md": Engine{}}
	unequal := []hosts.Entry{{Host: "a", Slots: 4}, {Host: "b", Slots: 8}}
	fio := engine.Phase{Name: "seq", Engine: "fio", Params: json.RawMessage(`{"job":"x"}`)}
	mdSet := engine.Phase{Name: "md", Engine: "md", Params: json.RawMessage(`{"dir":"/d","items":5,"workers":2,"seed":9007199254740993}`)}
	mdFree := engine.Phase{Name: "md", Engine: "md", Params: json.RawMessage(`{"dir":"/d","items":5,"seed":9007199254740993}`)}
	ph, notes, err := reg.WithSlots([]engine.Phase{fio, mdSet}, slotsOf(unequal))
	if err != nil || string(ph[1].Params) != string(mdSet.Params) || len(notes) != 1 {
		t.Errorf("md phase with workers: %s %v %v", ph[1].Params, notes, err)
	}
	if _, _, err := reg.WithSlots([]engine.Phase{fio, mdFree}, slotsOf(unequal)); err == nil || !strings.Contains(err.Error(), "slots differ") {
		t.Errorf("md phase without workers on unequal slots: %v", err)
	}
	ph, notes, err = reg.WithSlots([]engine.Phase{fio, mdFree}, slotsOf([]hosts.Entry{{Host: "a", Slots: 6}, {Host: "b", Slots: 6}}))
	if err != nil || string(ph[0].Params) != string(fio.Params) ||
		!strings.Contains(string(ph[1].Params), `"workers":6`) || !strings.Contains(string(ph[1].Params), `"seed":9007199254740993`) {
		t.Errorf("equal slots: %s %s %v", ph[0].Params, ph[1].Params, err)
	}
	if len(notes) != 1 || notes[0] != "md phases without their own worker count run 6 workers per host: the host files' slots" {
		t.Errorf("equal slots: notes %q", notes)
	}
	if _, notes, err := reg.WithSlots([]engine.Phase{fio}, slotsOf(unequal)); err != nil || len(notes) != 1 || !strings.Contains(notes[0], "no md phase") {
		t.Errorf("no md phase: %v %v", notes, err)
	}
	if _, _, err := reg.WithSlots([]engine.Phase{mdFree}, slotsOf([]hosts.Entry{{Host: "a", Slots: 2000}})); err == nil || !strings.Contains(err.Error(), "1024") {
		t.Errorf("2000 slots: %v", err)
	}
}

// An md phase starts its hosts together itself (the "ranks" barrier), so
// the controller gives it no lead: its plan says so.
func TestPlanStartsTogether(t *testing.T) {
	params, _ := json.Marshal(map[string]any{"dir": t.TempDir(), "items": 10, "workers": 1})
	if !(engine.Registry{"md": Engine{}}).StartsTogether(engine.Phase{Name: "md", Engine: "md", Params: params}) {
		t.Error("an md phase does not start together: the controller would hold it for its whole lead")
	}
}
