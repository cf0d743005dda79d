package engine

import (
	"maps"
	"slices"

	"github.com/storbench/storbench/internal/secret"
)

// Var is an environment variable an engine reads (Info.Environment). The
// command line reads every declared variable once, in one place, and an
// engine never reads the environment itself: it is handed what was read.
type Var struct {
	// Name is the variable's name ("STORBENCH_SECRET_KEY").
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
