package engine

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/safetext"
)

// Registry is the engines a program runs, by name. It is built as an
// explicit list (internal/engine/all for storbench's own, a test's fakes
// for a test) and handed to whatever needs to find an engine: the agent
// that runs phases, the controller, suites, the run.
type Registry map[model.EngineName]Engine

// Lookup returns the engine called name.
func (r Registry) Lookup(name model.EngineName) (Engine, error) {
	e, ok := r[name]
	if !ok {
		return nil, fmt.Errorf("unknown engine %q (known: %s)", name, strings.Join(r.names(), ", "))
	}
	return e, nil
}

// Register adds e under name, refusing a name already taken. It is the
// hook through which a test adds its own engine to storbench's list (and
// to the agents it starts from its own binary); storbench's engines are
// listed in internal/engine/all.
func (r Registry) Register(name model.EngineName, e Engine) error {
	if _, taken := r[name]; taken {
		return fmt.Errorf("engine %q is registered already", name)
	}
	if err := CheckPhaseName(string(name)); err != nil || name == "" {
		return fmt.Errorf("engine name %q: want a name that can name a suite key and a directory", name)
	}
	r[name] = e
	return nil
}

// Names lists the engines, sorted.
func (r Registry) Names() []model.EngineName {
	out := make([]model.EngineName, 0, len(r))
	for n := range r {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

func (r Registry) names() []string {
	var out []string
	for _, n := range r.Names() {
		out = append(out, string(n))
	}
	return out
}

// Validate checks a phase's name (a directory level of its workspace and
// of the results folder) and the phase with its engine's plan; an unknown
// engine is an error.
func (r Registry) Validate(p Phase) error {
	pl, err := r.Plan(p)
	if err != nil {
		return err
	}
	return pl.Check()
}

// Planned is one phase's planned duration, or for engines whose phases run
// until their work is done (md) an estimate from the engine's model
// (estimated is then true), or 0 when the engine can tell neither (or the
// phase does not decode).
func (r Registry) Planned(p Phase) (d time.Duration, estimated bool) {
	pl, err := r.Plan(p)
	if err != nil {
		return 0, false
	}
	return pl.Planned()
}

// CheckPhaseName refuses a phase name that cannot be a directory name: the
// phase's workspace on every host and its folder in the results are named
// after it; and one holding a control character (safetext).
func CheckPhaseName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") {
		return fmt.Errorf("phase name %q: want a name without '/' that is not . or .. (it names the phase's directories)", name)
	}
	if len(name) > MaxNameBytes {
		return fmt.Errorf("phase name %.20q... is %d bytes long: want at most %d (it names the phase's directories)", name, len(name), MaxNameBytes)
	}
	// Every terminal, summary.md and report.html shows it.
	return safetext.Check("phase name", name)
}
