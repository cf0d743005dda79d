package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
)

// The optional hooks below are what the spine (the run, suites, the agent,
// the command line) needs from an engine beyond preparing phases. The spine
// calls them only through the Registry, so it names no engine: a new engine
// is its package and one line in the engine list (internal/engine/all).

// Linker is implemented by engines whose phases depend on earlier phases of
// the same plan (fio's read_from: neighbour reads the files an earlier
// phase wrote), so the links are checked and settled across the whole plan.
type Linker interface {
	// Link returns the plan's phases with this engine's linked (other
	// engines' phases as they were). hosts[i], when given, is how many
	// hosts phase i runs on (0: all the run's, a count not known yet). A
	// refused link is a *LinkError naming the phase.
	Link(phases []Phase, hosts []int) ([]Phase, error)
}

// LinkError is a phase a Linker refuses, by its index in the plan.
type LinkError struct {
	Phase int
	Err   error
}

func (e *LinkError) Error() string { return e.Err.Error() }
func (e *LinkError) Unwrap() error { return e.Err }

// CheckEnv is what the controller knows when it checks a plan before any
// agent starts work.
type CheckEnv struct {
	// Keep leaves created files in place after each phase.
	Keep bool
	// AllowExec lets fio job files use options that run commands.
	AllowExec bool
	// Tools are where this machine's outside tools are.
	Tools Tools
	// Local says phases run on this machine too, so its tools and paths
	// can be checked here; remote agents check their own when preparing.
	Local bool
}

// PlanChecker is implemented by engines that check a plan's phases
// together before any agent starts work (md's trees made and removed across
// phases; fio's job files through fio's own parser), so a plan they refuse
// is bad input, not a failed run.
type PlanChecker interface {
	// CheckPlan checks the engine's phases among phases (every phase of the
	// plan, in order; other engines' are skipped).
	CheckPlan(ctx context.Context, env CheckEnv, phases []Phase) error
}

// Link settles the links of every Linker engine's phases across the plan.
func (r Registry) Link(phases []Phase, hosts []int) ([]Phase, error) {
	for _, n := range r.Names() {
		l, ok := r[n].(Linker)
		if !ok {
			continue
		}
		var err error
		if phases, err = l.Link(phases, hosts); err != nil {
			return nil, err
		}
	}
	return phases, nil
}

// CheckPlan runs every PlanChecker engine's check on the plan's phases, in
// engine name order, and returns the first refusal; with env.Local, every
// engine's outside tool is looked for on this machine too (FindTools),
// whether or not the engine checks its own. A *MissingTool is returned
// only when no engine refuses the plan (a dry run notes it and goes on),
// an engine's own before FindTools'.
func (r Registry) CheckPlan(ctx context.Context, env CheckEnv, phases []Phase) error {
	var missing error
	for _, n := range r.Names() {
		c, ok := r[n].(PlanChecker)
		if !ok || !slices.ContainsFunc(phases, func(p Phase) bool { return p.Engine == n }) {
			continue
		}
		err := c.CheckPlan(ctx, env, phases)
		var mt *MissingTool
		switch {
		case errors.As(err, &mt) && ctx.Err() == nil:
			missing = cmp.Or(missing, err)
		case err != nil:
			return err
		}
	}
	if env.Local && missing == nil {
		missing = r.FindTools(phases, env.Tools)
	}
	return missing
}

// Slots are the slots the hosts' host files give, as the contract needs
// them: workers per host, not host files (internal/hosts reads those).
type Slots struct {
	// Most is the most slots any host gives (0: none gives any).
	Most int
	// Equal is every host's slots when all give the same; Differ, when
	// they do not, says how, naming the hosts.
	Equal  int
	Differ error
}

// WithSlots gives the phases of engines that take slots (Info.TakesSlots) the slots of the host
// files as workers per host, as mpiexec starts one rank per slot. Every
// host receives the same phase, so the slots must be equal on all hosts
// for a phase that takes them; where no phase takes them, they are only
// noted.
func (r Registry) WithSlots(phases []Phase, s Slots) ([]Phase, []string, error) {
	given := s.Most
	if given == 0 {
		return phases, nil, nil
	}
	var notes []string
	out := append([]Phase(nil), phases...)
	taken, takers := false, 0
	slots, equal := s.Equal, s.Differ
	if equal != nil {
		slots = given // for a note; a phase that takes them refuses
	}
	for i, ph := range phases {
		if !r.Info(ph.Engine).TakesSlots {
			continue
		}
		takers++
		pl, err := r.Plan(ph)
		if err != nil {
			continue // Validate names what is wrong
		}
		np, note, err := pl.TakeSlots(slots, equal)
		if err != nil {
			return nil, nil, err
		}
		if note != "" {
			notes = append(notes, note)
			continue
		}
		out[i] = np
		taken = true
	}
	var names []string
	for _, n := range r.Names() {
		if r[n].Info().TakesSlots {
			names = append(names, string(n))
		}
	}
	what := strings.Join(names, " and ")
	switch {
	case taken:
		notes = append(notes, fmt.Sprintf("%s phases without their own worker count run %d workers per host: the host files' slots", what, given))
	case takers == 0:
		notes = append(notes, fmt.Sprintf("the host files' slots (%d) set %s workers per host; this run has no %s phase", given, what, what))
	}
	return out, notes, nil
}

// MissingTool is the error when an engine's outside tool cannot be found
// on this machine (a PlanChecker's, or FindTools'): a run refuses the
// plan, a dry run notes it, and that What was not checked.
type MissingTool struct {
	// Tool is the tool's name ("fio") and What what it would have checked
	// ("job files"; "" when it would have run the phases only).
	Tool, What string
	Err        error
}

func (e *MissingTool) Error() string { return e.Err.Error() }
func (e *MissingTool) Unwrap() error { return e.Err }

// Operations lists name's benchmarks (nil when its engine has none).
func (r Registry) Operations(name model.EngineName) []string {
	return r.Info(name).Operations
}

// Defaults is name's default settings by key, as a phase's params name
// them (nil when the engine says none).
func (r Registry) Defaults(name model.EngineName) map[string]any {
	d := r.Info(name).Defaults
	if d == nil {
		return nil
	}
	b, err := json.Marshal(d)
	var m map[string]any
	if err != nil || json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}

// Headline asks p's plan for its headline at point ("" when its engine
// chooses none, or p does not decode).
func (r Registry) Headline(p Phase, point map[string]string) model.Headline {
	if pl, err := r.Plan(p); err == nil {
		return pl.Headline(point)
	}
	return ""
}

// AutoTerm is p's rule for ending once its throughput is stable, and p
// without it (Plan.AutoTerm; ok false when p has none).
func (r Registry) AutoTerm(p Phase) (term record.AutoTerm, without Phase, ok bool) {
	if pl, err := r.Plan(p); err == nil {
		return pl.AutoTerm()
	}
	return term, p, false
}

// RateUnit is what name's engine calls its operation rates ("" when it
// says nothing).
func (r Registry) RateUnit(name model.EngineName) string { return r.Info(name).RateUnit }

// TextFormats is the text formats name's engine offers (nil when it says
// none).
func (r Registry) TextFormats(name model.EngineName) []string { return r.Info(name).TextFormats }

// UsesKeys says p's engine signs requests with keys.
func (r Registry) UsesKeys(p Phase) bool { return r.Info(p.Engine).UsesKeys }

// LacksKeys says p's engine signs requests with keys and p carries none
// of its own: it needs its agent's.
func (r Registry) LacksKeys(p Phase) bool {
	if !r.UsesKeys(p) {
		return false
	}
	pl, err := r.Plan(p)
	return err != nil || !pl.OwnKeys()
}

// Endpoint is how an engine's phases name the service endpoint they need
// (s3's host), which the environment may give instead of the suite, so a
// suite can skip an optional entry without one and a dry run can plan one.
type Endpoint struct {
	// Keys are the settings that name an endpoint (any one does).
	Keys []string
	// Placeholder are settings naming a stand-in endpoint, to validate a
	// dry run's phase planned before one is known.
	Placeholder map[string]any
	// Skipped is the note for an optional entry skipped without one, and
	// Planned for the phases a dry run planned without one.
	Skipped, Planned string
	// FromEnvironment says how the environment names one (a line naming
	// the engine's variable), for a command's error when none is given.
	FromEnvironment string
}

// HasEndpoint says settings name an endpoint.
func (e *Endpoint) HasEndpoint(settings map[string]any) bool {
	for _, k := range e.Keys {
		if _, ok := settings[k]; ok {
			return true
		}
	}
	return false
}

// WithPlaceholder returns settings with the stand-in endpoint under
// those they name.
func (e *Endpoint) WithPlaceholder(settings map[string]any) map[string]any {
	out := maps.Clone(e.Placeholder)
	if out == nil {
		out = map[string]any{}
	}
	maps.Copy(out, settings)
	return out
}

// NoEndpoint is the note for phases without one: an optional entry
// skipped, or (planned) phases a dry run planned.
func (e *Endpoint) NoEndpoint(planned bool) string {
	if planned {
		return e.Planned
	}
	return e.Skipped
}

// Endpointed returns name's Endpoint (Info.Endpoint), if its engine needs
// one.
func (r Registry) Endpointed(name model.EngineName) (*Endpoint, bool) {
	ep := r.Info(name).Endpoint
	return ep, ep != nil
}

// Carrier is implemented by engines whose phases hand a figure the hosts
// recorded on to a later phase: fio's stonewall write gives the read that
// follows the count of blocks every job wrote, as IO500 passes its
// stonewall file from the write to the read.
type Carrier interface {
	// Carried is what a finished phase leaves for later ones (ok false:
	// nothing), from its hosts' results.
	Carried(hosts []*HostResult) (n int64, ok bool)
	// WithCarried gives p what earlier phases left, by phase name; an
	// error when p needs a figure no earlier phase left.
	WithCarried(p Phase, carried map[string]int64) (Phase, error)
}

// Carried is what phase p, finished with hosts, leaves for later phases.
func (r Registry) Carried(p Phase, hosts []*HostResult) (int64, bool) {
	if c, ok := r[p.Engine].(Carrier); ok {
		return c.Carried(hosts)
	}
	return 0, false
}

// WithCarried gives p what earlier phases left (p as it is when its
// engine carries nothing).
func (r Registry) WithCarried(p Phase, carried map[string]int64) (Phase, error) {
	if c, ok := r[p.Engine].(Carrier); ok {
		return c.WithCarried(p, carried)
	}
	return p, nil
}

// CheckResources checks every phase's resources on this machine, in
// order; it returns the first refusal and the notes of what was not known.
func (r Registry) CheckResources(phases []Phase) (notes []string, err error) {
	for _, p := range phases {
		pl, err := r.Plan(p)
		if err != nil {
			continue
		}
		note, err := pl.CheckResources()
		if err != nil {
			return nil, err
		}
		if note != "" {
			notes = append(notes, note)
		}
	}
	return notes, nil
}

// Probe probes p's service with its plan (Plan.Probe); ok is false when
// its engine cannot probe. Settings that do not decode are the error.
func (r Registry) Probe(ctx context.Context, env Env, p Phase) (probe *model.Probe, ok bool, err error) {
	pl, err := r.Plan(p)
	if err != nil {
		return nil, true, err
	}
	probe, err = pl.Probe(ctx, env)
	return probe, probe != nil || err != nil, err
}
