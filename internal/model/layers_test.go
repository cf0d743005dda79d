package model_test

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// engines are the engine packages, which only the engine list imports:
// every package directly under internal/engine but the list itself, found
// on disk so that a new engine is checked without being named here (the
// conformance suite, which starts agents, lives apart: internal/enginetest).
var engines = func() []string {
	var out []string
	dirs, _ := filepath.Glob(filepath.Join("..", "engine", "*"))
	for _, d := range dirs {
		name := filepath.Base(d)
		files, _ := filepath.Glob(filepath.Join(d, "*.go"))
		if name == "all" || len(files) == 0 {
			continue
		}
		out = append(out, "internal/engine/"+name)
	}
	return out
}()

// imports maps every non-test package of the module (its path without the
// module prefix) to the module's packages it imports directly.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", module+"...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg, ok := strings.CutPrefix(f[0], module)
		if !ok {
			continue
		}
		m[pkg] = nil
		for _, imp := range f[1:] {
			if rel, ok := strings.CutPrefix(imp, module); ok {
				m[pkg] = append(m[pkg], rel)
			}
		}
	}
	return m
}

// The spine names no engine: outside internal/engine, no package imports
// an engine's package but the engine list (internal/engine/all), so a new
// engine is its package and one line in that list. bench/ tools that build
// data for an engine are exempt, as are tests.
func TestOnlyTheEngineListImportsEngines(t *testing.T) {
	pkgs := imports(t)
	if len(engines) < 3 {
		t.Fatalf("engine packages found: %v", engines)
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages: %v", len(pkgs), pkgs)
	}
	for pkg, imps := range pkgs {
		if strings.HasPrefix(pkg, "internal/engine/") || strings.HasPrefix(pkg, "bench/") {
			continue
		}
		for _, imp := range imps {
			if slices.Contains(engines, imp) {
				t.Errorf("%s imports %s: reach the engine through the engine.Registry (only internal/engine/all lists engines)", pkg, imp)
			}
		}
	}
}

// The spine's layers, checked on what the build sees (go list -deps), so a
// rule broken through an intermediate package is caught too.
func TestSpineLayers(t *testing.T) {
	forbidden := append([]string{"internal/engine/all"}, engines...)
	for _, rule := range []struct {
		pkg       string
		forbidden []string
	}{
		{pkg: "internal/run", forbidden: forbidden},
		{pkg: "internal/suite", forbidden: forbidden},
		{pkg: "internal/cluster", forbidden: forbidden},
		{pkg: "internal/cli", forbidden: forbidden},
		{pkg: "internal/metrics", forbidden: forbidden},
		// A run writes data and hands rendering to the renderers.
		{pkg: "internal/run", forbidden: []string{"internal/report"}},
		// Agents know hosts, not the results folder.
		{pkg: "internal/cluster", forbidden: []string{"internal/results"}},
		// Metrics hears the run through the sink it is given.
		{pkg: "internal/metrics", forbidden: []string{"internal/run"}},
		// A run writes data; analysis is the reader's, handed to it.
		{pkg: "internal/run", forbidden: []string{"internal/analyze"}},
		// A suite is input: it does not know the results folder.
		{pkg: "internal/suite", forbidden: []string{"internal/results"}},
		// The contract knows no host files (engine.Slots).
		{pkg: "internal/engine", forbidden: []string{"internal/hosts"}},
	} {
		t.Run(strings.TrimPrefix(rule.pkg, "internal/")+" not "+strings.Join(rule.forbidden, ","), func(t *testing.T) {
			for _, d := range deps(t, rule.pkg) {
				rel, ok := strings.CutPrefix(d, module)
				if ok && slices.Contains(rule.forbidden, rel) {
					t.Errorf("%s depends on %s", rule.pkg, rel)
				}
			}
		})
	}
}

// The conformance suite (internal/enginetest) starts agents, so it sits
// apart from the contract, above the cluster, and only tests import it:
// no package of the product, an engine's own code included, reaches it.
func TestConformanceSuiteOnlyInTests(t *testing.T) {
	pkgs := imports(t)
	if _, ok := pkgs["internal/enginetest"]; !ok {
		t.Fatal("go list did not find internal/enginetest")
	}
	for pkg, imps := range pkgs {
		if slices.Contains(imps, "internal/enginetest") {
			t.Errorf("%s imports internal/enginetest: only tests may", pkg)
		}
	}
}
