package model_test

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/storbench/storbench/"

// deps lists the packages pkg depends on, itself included, through
// `go list -deps` (what the build sees, not what the source says).
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	watchSources(t)
	out, err := exec.Command("go", "list", "-deps", module+pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
	}
	return strings.Fields(string(out))
}

// The layering of DESIGN.md: the packages that read results work from the
// model types and never pull in the engines that produced them (so a
// report can be rendered, or a result analysed, on a machine without fio,
// and an engine change cannot break reading old results); engines never
// reach up into the command line, the run or the cluster; the run, the
// cluster and the run's listeners each stay below what they must not know.
func TestLayers(t *testing.T) {
	for _, rule := range []struct {
		pkgs      []string
		forbidden []string
	}{
		{[]string{"internal/results", "internal/analyze", "internal/report", "internal/model"}, []string{"internal/engine"}},
		// A run writes data and hands rendering to the renderers it is
		// given: it never renders a file itself.
		{[]string{"internal/run"}, []string{"internal/report"}},
		// The cluster names hosts with model's names, not the results
		// folder's writer.
		{[]string{"internal/cluster"}, []string{"internal/results"}},
		// Listeners of a run (metrics) implement package sink's
		// interface: they never reach up into the run.
		{[]string{"internal/metrics"}, []string{"internal/run"}},
		{append([]string{"internal/engine"}, engines...),
			[]string{"internal/cli", "internal/run", "internal/cluster"}},
	} {
		for _, pkg := range rule.pkgs {
			for _, d := range deps(t, pkg) {
				rel, ok := strings.CutPrefix(d, module)
				if !ok {
					continue
				}
				for _, f := range rule.forbidden {
					if rel == f || strings.HasPrefix(rel, f+"/") {
						t.Errorf("%s depends on %s", pkg, rel)
					}
				}
			}
		}
	}
}
