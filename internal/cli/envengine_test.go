package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/secret"
)

// The variables the cellar engine declares: no file outside this one names
// them.
const (
	cellarDoor   = "STORBENCH_TEST_CELLAR_DOOR"
	cellarPin    = "STORBENCH_TEST_CELLAR_PIN"
	cellarOldPin = "STORBENCH_TEST_CELLAR_OLD_PIN"
)

// cellarEngine lives in this test file only and reads its own environment
// (Info.ApplyEnvironment), as s3 reads its endpoint and keys: its door
// setting, when a suite leaves it out, from one variable (a value with a
// blank is refused, naming the variable), and its pin from one of two
// secret variables, which its phases take under the first name. A phase
// opens only when its door is the one it wants and its pin the one given.
type cellarEngine struct{ engine.Base }

type cellarParams struct {
	Door     string `json:"door"`
	WantDoor string `json:"want_door"`
}

func (cellarEngine) Info() engine.Info {
	return engine.Info{RateUnit: "open/s", ParamKeys: engine.JSONKeys(cellarParams{}),
		Environment:      []engine.Var{{Name: cellarDoor}, {Name: cellarPin, Secret: true}, {Name: cellarOldPin, Secret: true}},
		ApplyEnvironment: applyCellar}
}

func applyCellar(env engine.Environ, settings map[string]any) (engine.Applied, error) {
	door := env.Get(cellarDoor)
	if strings.Contains(door, " ") {
		return engine.Applied{}, fmt.Errorf("%s=%q: want a door without blanks", cellarDoor, door)
	}
	if _, set := settings["door"]; !set && door != "" && settings != nil {
		settings["door"] = door
	}
	pin := env.Secrets.Get(cellarPin)
	if pin.Empty() {
		pin = env.Secrets.Get(cellarOldPin)
	}
	a := engine.Applied{Secrets: engine.Secrets{}, Missing: "set " + cellarPin}
	if !pin.Empty() {
		a.Secrets[cellarPin] = pin
	}
	return a, nil
}

func (cellarEngine) Prepare(_ context.Context, env engine.Env, p engine.Phase) (engine.Prepared, error) {
	var cp cellarParams
	if err := engine.DecodeStrict(p.Params, &cp); err != nil {
		return nil, err
	}
	if cp.Door != cp.WantDoor {
		return nil, fmt.Errorf("cellar: door %q, want %q", cp.Door, cp.WantDoor)
	}
	if pin := env.Secrets.Get(cellarPin); pin.Reveal() != "4711" || !env.Secrets.Get(cellarOldPin).Empty() {
		return nil, fmt.Errorf("cellar: pin %q, old pin given: %v", pin.Reveal(), !env.Secrets.Get(cellarOldPin).Empty())
	}
	return &oneOpPhase{host: env.Host, op: "open"}, nil
}

// An engine reads its own environment, not the command line: what a
// suite leaves unset comes from the variable the engine declared (and a
// suite's setting wins over it), the secret it settles on reaches its
// phase under its own name, and a value it cannot use is bad input naming
// the variable, before any results folder. Nothing in the command line
// names the engine's variables (the s3 engine's endpoint, region and keys
// go the same way).
func TestEngineAppliesItsOwnEnvironment(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	suiteFile := func(door string) string {
		f := filepath.Join(dir, "suite-"+door+".yaml")
		yaml := "name: cellar\nphases:\n  - name: open\n    cellar: {want_door: " + door + "}\n"
		if door == "given" {
			yaml = "name: cellar\ncellar: {door: given}\nphases:\n  - name: open\n    cellar: {want_door: given}\n"
		}
		if err := os.WriteFile(f, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	run := func(file string, env map[string]string) (string, []os.DirEntry, error) {
		st, buf := testState()
		st.Engines = probeEngines()
		if err := st.Engines.Register("cellar", cellarEngine{}); err != nil {
			t.Fatal(err)
		}
		st.Getenv = func(k string) string { return env[k] }
		res := t.TempDir()
		err := Execute(t.Context(), st, []string{"run", file, "--results", res})
		ents, _ := os.ReadDir(res)
		if err == nil && len(ents) == 1 {
			b, _ := os.ReadFile(filepath.Join(res, ents[0].Name(), "summary.json"))
			if !regexp.MustCompile(`"op": "open"`).Match(b) {
				err = fmt.Errorf("the phase did not open: %s", b)
			}
		}
		return buf.String(), ents, err
	}
	for _, tc := range []struct {
		name, door string
		env        map[string]string
	}{
		{"the door and the pin from the environment", "cellar-7", map[string]string{cellarDoor: "cellar-7", cellarPin: "4711"}},
		{"the old pin, under the engine's first name", "cellar-7", map[string]string{cellarDoor: "cellar-7", cellarOldPin: "4711"}},
		{"the suite's door over the environment's", "given", map[string]string{cellarDoor: "cellar-7", cellarPin: "4711"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if out, _, err := run(suiteFile(tc.door), tc.env); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
		})
	}
	t.Run("a value the engine cannot use", func(t *testing.T) {
		_, ents, err := run(suiteFile("cellar-7"), map[string]string{cellarDoor: "cellar 7", cellarPin: "4711"})
		if ExitCode(err) != ExitUsage || err == nil || !strings.Contains(err.Error(), cellarDoor) || strings.Contains(err.Error(), "\n") {
			t.Errorf("exit %d, %v; want one line naming %s", ExitCode(err), err, cellarDoor)
		}
		if len(ents) != 0 {
			t.Errorf("bad input left %d entries in the results folder", len(ents))
		}
	})
	// The engine's secrets are what it settled on: the old pin's variable
	// is not carried under its own name.
	st, _ := testState()
	st.Engines = probeEngines()
	_ = st.Engines.Register("cellar", cellarEngine{})
	env, err := readEnvironment(func(k string) string { return map[string]string{cellarOldPin: "4711"}[k] }, st.Engines)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := env.agentSecrets()
	if want := (engine.Secrets{cellarPin: secret.New("4711")}); fmt.Sprint(s.Names()) != fmt.Sprint(want.Names()) || s.Get(cellarPin).Reveal() != "4711" {
		t.Errorf("an agent's secrets %v, want only %s", s.Names(), cellarPin)
	}
}
