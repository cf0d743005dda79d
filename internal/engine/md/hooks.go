package md

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
)

var (
	_ engine.PlanChecker = Engine{}
)

// CheckPlan refuses trees used before they are made or left behind across
// the plan (see CheckTrees), and, when phases run on this machine, trees
// that need more open directories than its open-file limit allows.
func (Engine) CheckPlan(_ context.Context, env engine.CheckEnv, phases []engine.Phase) error {
	if err := CheckTrees(phases, env.Keep); err != nil {
		return err
	}
	if !env.Local {
		return nil // each agent checks its own limit when preparing
	}
	for _, ph := range phases {
		if ph.Engine != model.EngineMD {
			continue
		}
		p, err := phaseParams(ph)
		if err != nil {
			continue // Validate names what is wrong
		}
		if err := checkOpenFiles(p); err != nil {
			return fmt.Errorf("phase %s: %w", ph.Name, err)
		}
	}
	return nil
}

// TakeSlots gives a phase that sets no workers (-t) one worker per slot,
// as mpiexec starts one mdtest rank per slot.
func (pl plan) TakeSlots(slots int, equal error) (engine.Phase, string, error) {
	ph := pl.phase
	// json.Number keeps every number as written (a seed above 2^53).
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(ph.Params))
	dec.UseNumber()
	if dec.Decode(&m) != nil {
		return ph, "", nil // Validate names what is wrong
	}
	if w, set := m["workers"]; set && fmt.Sprint(w) != "0" {
		return ph, fmt.Sprintf("phase %s sets workers (-t) %v; the host files' slots (%d) are not used for it", ph.Name, w, slots), nil
	}
	if equal != nil {
		return ph, "", fmt.Errorf("%v, or give md's workers with -t (workers: in a suite)", equal)
	}
	if slots > MaxWorkers {
		return ph, "", fmt.Errorf("the host files give %d slots per host, but md runs at most %d workers per host: give fewer slots, or -t", slots, MaxWorkers)
	}
	m["workers"] = slots
	b, err := json.Marshal(m)
	if err != nil {
		return ph, "", err
	}
	ph.Params = b
	return ph, "", nil
}

// Info: md's rates are ops/s, its results print as mdtest's table, and
// its phases' lengths are estimated (Estimate).
func (Engine) Info() engine.Info {
	return engine.Info{
		RateUnit:      "ops/s",
		TextFormats:   []string{model.FormatMdtest},
		ParamKeys:     engine.JSONKeys(Params{}),
		Defaults:      DefaultParams(),
		Flags:         flags,
		PausesLoad:    true,
		TakesSlots:    true,
		EstimateModel: "md phases run until their items are done; estimated at 1,000 operations per second per worker (items x operations x iterations; a stonewall bounds the creates)",
	}
}

// plan is an md phase decoded.
type plan struct {
	engine.BasePlan
	phase engine.Phase
	name  string
	ps    Params
}

// Location names the directory host's phase works in: its trees stay there
// when the host is lost before cleanup. A host is lost only from a phase
// on several hosts, so a phase that would share a tree there did.
func (pl plan) Location(runID, host string) (what, where string, ok bool) {
	if pl.ps.shared(2) {
		return "files and directories", filepath.Join(pl.ps.Dir, "storbench", runID, engine.SharedName, pl.ps.sharedName(pl.name)), true
	}
	return "files and directories", filepath.Join(pl.ps.Dir, "storbench", runID, host, pl.name), true
}

// Plan decodes a phase's parameters (which checks them, without touching
// the file system).
func (Engine) Plan(ph engine.Phase) (engine.Plan, error) {
	ps, err := phaseParams(ph)
	if err != nil {
		return nil, err
	}
	return plan{phase: ph, name: ph.Name, ps: ps}, nil
}

// StartsTogether says md phases start their hosts together themselves:
// every host meets the others at the "ranks" barrier before the first
// operation, whose own barrier starts it on all.
func (plan) StartsTogether() bool { return true }

// Planned is the phase's estimated length (Estimate).
func (pl plan) Planned() (time.Duration, bool) { return Estimate(pl.ps), true }

// MatchOps takes the operations an md phase may record: md's.
func (plan) MatchOps() func(string) bool {
	return func(op string) bool { return slices.Contains(OpNames[:], op) }
}

// OpNames are the operations an md phase runs, in the order they run;
// nil when its settings cannot be read (Validate says why).
func (pl plan) OpNames() []string {
	ps := pl.ps
	names := []string{}
	for _, k := range ps.ops() {
		names = append(names, k.String())
	}
	return names
}
