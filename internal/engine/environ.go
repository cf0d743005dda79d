package engine

import (
	"maps"
	"slices"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/secret"
)

// Var is an environment variable an engine reads (Info.Environment). The
// command line reads every declared variable once, in one place, and an
// engine never reads the environment itself: it is handed what was read.
type Var struct {
	// Name is the variable's name, as a user sets it.
	Name string
	// Secret says its value is a secret: it reaches the engine only in
	// Env.Secrets, travels to agents only on a launcher's stdin (never on
	// a command line or in an environment passed on), and is never
	// written or printed.
	Secret bool
}

// Secrets are the values of the engines' secret variables, by variable
// name: read once from the environment, carried to agents by launchers
// that do not know the names, and handed to each engine in Env.Secrets,
// where it takes the names it declared. Values print redacted.
type Secrets map[string]secret.String

// Get is the value of the variable called name ("" when not given).
func (s Secrets) Get(name string) secret.String { return s[name] }

// Names are the names that have a value, sorted.
func (s Secrets) Names() []string {
	var out []string
	for _, n := range slices.Sorted(maps.Keys(s)) {
		if !s[n].Empty() {
			out = append(out, n)
		}
	}
	return out
}

// Empty says no variable has a value.
func (s Secrets) Empty() bool { return len(s.Names()) == 0 }

// Environment is every variable the engines declare, each once, sorted by
// name (a variable two engines read is secret when either says so).
func (r Registry) Environment() []Var {
	byName := map[string]Var{}
	for _, n := range r.Names() {
		for _, v := range r[n].Info().Environment {
			v.Secret = v.Secret || byName[v.Name].Secret
			byName[v.Name] = v
		}
	}
	var out []Var
	for _, n := range slices.Sorted(maps.Keys(byName)) {
		out = append(out, byName[n])
	}
	return out
}

// SecretNames are the names of the secret variables the engines declare,
// sorted: what a launcher keeps out of an environment it passes on.
func (r Registry) SecretNames() []string {
	var out []string
	for _, v := range r.Environment() {
		if v.Secret {
			out = append(out, v.Name)
		}
	}
	return out
}

// Environ is the environment as the command line read it, once: the
// variables the engines declare (Info.Environment), the secret ones apart.
// An engine that applies its own environment (Info.ApplyEnvironment) is
// handed it, and reads the names it declared.
type Environ struct {
	// Vars are the values of the variables that are not secret ("" when
	// unset).
	Vars map[string]string
	// Secrets are the values of the secret ones that are set.
	Secrets Secrets
}

// Get is the value of the variable called name, a secret one's too ("" when
// unset).
func (e Environ) Get(name string) string {
	if v, ok := e.Vars[name]; ok {
		return v
	}
	return e.Secrets.Get(name).Reveal()
}

// Applied is what an engine made of the environment (Info.ApplyEnvironment).
type Applied struct {
	// Secrets are what the engine's phases take in Env.Secrets, in place
	// of the secret variables it declared as they were read (s3: the keys
	// its chain settled on, under one set of names, whichever source
	// gave them).
	Secrets Secrets
	// SecretsErr says why the secrets could not be settled (s3: one key
	// without its pair, a profile that is not there): bad input only for
	// a command that needs them.
	SecretsErr error
	// Missing says what a user sets when a phase needs secrets and there
	// are none: a line naming the engine's variables.
	Missing string
}

// ApplyFunc is how an engine applies the environment (Info.ApplyEnvironment):
// it fills what settings (a suite's block for the engine, or its command's
// flags; nil when there are none, as on an agent) leave unset, and settles
// its secrets; secret settings in settings (Info.Secrets: flags' keys) come
// before the environment's. An error is a variable whose value it cannot
// use, named with the variable.
type ApplyFunc func(env Environ, settings map[string]any) (Applied, error)

// ApplyEnvironment applies env to the settings of engine name's phases
// (nil: none) and returns its secrets: the engine's own reading when it has
// one (Info.ApplyEnvironment), else the secret variables it declared, as
// read.
func (r Registry) ApplyEnvironment(name model.EngineName, env Environ, settings map[string]any) (Applied, error) {
	info := r.Info(name)
	if info.ApplyEnvironment != nil {
		return info.ApplyEnvironment(env, settings)
	}
	out := Secrets{}
	for _, v := range info.Environment {
		if s := env.Secrets.Get(v.Name); v.Secret && !s.Empty() {
			out[v.Name] = s
		}
	}
	return Applied{Secrets: out}, nil
}
