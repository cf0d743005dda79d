package engine

import (
	"encoding/json"
	"time"

	"github.com/storbench/storbench/internal/model"
)

// Info is what an engine is, the same for every phase: static facts as
// data, which the spine reads instead of asking an optional hook each.
type Info struct {
	// RateUnit is what the engine calls its operation rates ("IOPS",
	// "ops/s", "obj/s"): a phase's summary keeps it as rate_unit, so a
	// report says it without knowing the engine ("" says nothing).
	RateUnit string
	// TextFormats are the text formats of the tools the engine stands in
	// for (model.FormatWarp, ...), the one of a phase's own text first: a
	// phase's summary keeps them, so a report chooses its text, tables
	// and figures' rules by them, without knowing the engine.
	TextFormats []string
	// EstimateModel says in a line how the engine estimates the length of
	// phases that run until their work is done (md), for a dry run; ""
	// when its phases' lengths are planned, not estimated.
	EstimateModel string
	// Secrets are the settings whose values are secrets (s3's keys written
	// into a suite): Registry.Redacted blanks them in anything written
	// down (run.json, a dry run's plan).
	Secrets []string
}

// Plan is one phase as its engine decoded it (Engine.Plan): the answers to
// what the spine asks of the phase before and around its run. An engine's
// plan embeds BasePlan and states only the answers it has.
type Plan interface {
	// Check checks the phase without touching anything (no file system,
	// no network), so a controller refuses bad input before any agent
	// starts work.
	Check() error
	// Planned is how long the phase runs: planned from its settings, or,
	// for phases that run until their work is done (md), estimated from
	// the engine's model (estimated is then true); 0 when the engine can
	// tell neither.
	Planned() (d time.Duration, estimated bool)
}

// BasePlan is the plan of a phase whose engine says nothing more of it:
// it checks nothing and plans no length. Engines embed it in their plans.
type BasePlan struct{}

// Check accepts the phase.
func (BasePlan) Check() error { return nil }

// Planned says the length is not known.
func (BasePlan) Planned() (time.Duration, bool) { return 0, false }

// Base is an engine with no static facts whose phases' plans are BasePlan:
// test engines embed it and state only what they have.
type Base struct{}

// Info says nothing.
func (Base) Info() Info { return Info{} }

// Plan is a BasePlan for every phase.
func (Base) Plan(Phase) (Plan, error) { return BasePlan{}, nil }

// Plan decodes p with its engine. An unknown engine, a phase name that
// cannot name its directories, or settings that do not decode are an
// error.
func (r Registry) Plan(p Phase) (Plan, error) {
	e, err := r.Lookup(p.Engine)
	if err != nil {
		return nil, err
	}
	if err := CheckPhaseName(p.Name); err != nil {
		return nil, err
	}
	return e.Plan(p)
}

// Redacted returns p without the secrets its engine declares (Info.Secrets):
// each given one is "REDACTED". Params that are not an object, when the
// engine has secrets, are dropped whole rather than risk one.
func (r Registry) Redacted(p Phase) Phase {
	secrets := r.Info(p.Engine).Secrets
	if len(secrets) == 0 {
		return p
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(p.Params, &m) != nil {
		p.Params = json.RawMessage(`{}`)
		return p
	}
	changed := false
	for _, k := range secrets {
		if _, ok := m[k]; ok {
			m[k] = json.RawMessage(`"REDACTED"`)
			changed = true
		}
	}
	if changed {
		p.Params, _ = json.Marshal(m)
	}
	return p
}

// Info is name's static facts (none for an unknown engine).
func (r Registry) Info(name model.EngineName) Info {
	if e, ok := r[name]; ok {
		return e.Info()
	}
	return Info{}
}
