package cli

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/secret"
	"github.com/storbench/storbench/internal/suite"
)

// environment is everything storbench takes from its environment: the
// variables the engines declare (Info.Environment), read once, here, when
// a command first needs it; a variable no engine declares is not read.
// Each engine makes of them what it will (Registry.ApplyEnvironment: s3
// reads its endpoint, region and keys as the AWS tools do), so nothing
// here knows a variable's name, and applies them with one precedence
// everywhere: what a flag or a suite says first, then the environment,
// then the engine's default. Nothing else reads the environment: the
// engines are given what they need (engine.Env), and an agent's own
// secrets come from here too.
type environment struct {
	env     engine.Environ
	engines engine.Registry
	// applied is each engine's reading of the environment alone (no
	// settings): its secrets, and why they could not be settled.
	applied map[model.EngineName]engine.Applied
}

// environment returns the environment, read through Getenv on first use.
func (st *State) environment() (environment, error) {
	st.envOnce.Do(func() { st.env, st.envErr = readEnvironment(st.getenv, st.Engines) })
	return st.env, st.envErr
}

// readEnvironment reads every variable the engines declare once, and has
// each engine read its own: a value an engine cannot use (a boolean that
// is none, an endpoint URL that is not one) is bad input for every
// command, named by the engine with its variable.
func readEnvironment(lookup func(string) string, engines engine.Registry) (environment, error) {
	e := environment{env: engine.Environ{Vars: map[string]string{}, Secrets: engine.Secrets{}}, engines: engines,
		applied: map[model.EngineName]engine.Applied{}}
	for _, v := range engines.Environment() {
		val := lookup(v.Name)
		if !v.Secret {
			e.env.Vars[v.Name] = val
			continue
		}
		if strings.ContainsAny(val, "\r\n") {
			// A launcher sends each secret to agents as one NAME=VALUE
			// line: a break would cut it there, or start another name.
			return environment{}, usageErr("%s holds a line break: give the secret on one line", v.Name)
		}
		if val != "" {
			e.env.Secrets[v.Name] = secret.New(val)
		}
	}
	for _, name := range engines.Names() {
		a, err := e.apply(name, nil)
		if err != nil {
			return environment{}, err
		}
		e.applied[name] = a
	}
	return e, nil
}

// apply has engine name fill what settings leave unset from the
// environment (nil: none) and settle its secrets (engine.Applied).
func (e environment) apply(name model.EngineName, settings map[string]any) (engine.Applied, error) {
	a, err := e.engines.ApplyEnvironment(name, e.env, settings)
	return a, asUsage(err)
}

// applyToSuite applies the environment to the suite's block of every
// engine that reads its own (Info.ApplyEnvironment), as a command applies
// it to its flags, and returns each engine's secrets. The block's secret
// settings (a suite's keys) stay its phases' own: the environment's keys
// are the run's, for phases that carry none.
func (e environment) applyToSuite(s *suite.Suite) (map[model.EngineName]engine.Applied, error) {
	out := maps.Clone(e.applied)
	for _, name := range e.engines.Names() {
		info := e.engines.Info(name)
		if info.ApplyEnvironment == nil {
			continue
		}
		blk := s.Block(name)
		settings := maps.Clone(blk)
		for _, k := range info.Secrets {
			delete(settings, k)
		}
		a, err := e.apply(name, settings)
		if err != nil {
			return nil, err
		}
		for k, v := range settings {
			if _, set := blk[k]; !set {
				blk[k] = v
			}
		}
		out[name] = a
	}
	return out, nil
}

// keyless is a phase of a local run that carries no keys of its own
// while its engine has none, and what the user gives for them.
type keyless struct {
	phase engine.Phase
	give  string
}

// runSecrets are the secrets of the engines phases run, for the plan:
// bad input (err) when an engine whose phases sign with keys
// (Info.UsesKeys) could not settle them. For a run with no agent
// elsewhere (local), lacking names a phase that carries no keys of its
// own while its engine has none (a dry run plans it all the same).
func runSecrets(engines engine.Registry, applied map[model.EngineName]engine.Applied, phases []engine.Phase, local bool) (s engine.Secrets, lacking *keyless, err error) {
	s = engine.Secrets{}
	for _, name := range engines.Names() {
		if !slices.ContainsFunc(phases, func(p engine.Phase) bool { return p.Engine == name }) {
			continue
		}
		a := applied[name]
		if a.SecretsErr != nil && engines.Info(name).UsesKeys {
			return nil, nil, asUsage(a.SecretsErr)
		}
		maps.Copy(s, a.Secrets)
	}
	if !local {
		return s, nil, nil
	}
	for _, p := range phases {
		if a := applied[p.Engine]; engines.LacksKeys(p) && a.Secrets.Empty() {
			give := fmt.Sprintf("%s, or give %s in the suite's %s block", a.Missing, strings.Join(engines.Info(p.Engine).Secrets, ", "), p.Engine)
			return s, &keyless{phase: p, give: give}, nil
		}
	}
	return s, nil, nil
}

// agentSecrets are the secrets of every engine, as the environment gives
// them, for an agent, and the first error settling them.
func (e environment) agentSecrets() (engine.Secrets, error) {
	s := engine.Secrets{}
	var first error
	for _, name := range e.engines.Names() {
		a := e.applied[name]
		if a.SecretsErr != nil && first == nil {
			first = a.SecretsErr
		}
		maps.Copy(s, a.Secrets)
	}
	return s, first
}
