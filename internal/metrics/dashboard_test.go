package metrics_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/metrics"
	"github.com/storbench/storbench/internal/s3test"
)

// dashboard is the part of Grafana's dashboard model the tests read.
type dashboard struct {
	Title  string
	UID    string
	Panels []struct {
		Title   string
		Targets []struct {
			Expr string
		}
	}
	Templating struct {
		List []struct {
			Name       string
			Type       string
			Definition string
		}
	}
}

// dashboardExprs returns the PromQL of every panel of the dashboard file.
func dashboardExprs(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var out []string
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			if strings.TrimSpace(tg.Expr) == "" {
				t.Errorf("panel %q has an empty query", p.Title)
			}
			out = append(out, tg.Expr)
		}
	}
	return out
}

// The dashboard parses, every panel has a query, and every metric it
// names (panels and variables) is one storbench serves.
func TestDashboardNamesOnlyOurMetrics(t *testing.T) {
	root, err := s3test.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "deploy", "grafana", "storbench.json")
	exprs := dashboardExprs(t, file)
	b, _ := os.ReadFile(file)
	var d dashboard
	_ = json.Unmarshal(b, &d)
	if d.UID == "" || d.Title == "" || len(d.Panels) < 6 {
		t.Fatalf("dashboard %q (uid %q) has %d panels", d.Title, d.UID, len(d.Panels))
	}
	for _, v := range d.Templating.List {
		if v.Type == "query" {
			exprs = append(exprs, v.Definition)
		}
	}
	served := map[string]bool{}
	for _, n := range []string{metrics.NameOps, metrics.NameBytes, metrics.NameErrors, metrics.NameState, metrics.NameElapsed, metrics.NamePlanned} {
		served[n] = true
	}
	for _, s := range []string{"_bucket", "_sum", "_count"} {
		served[metrics.NameLatency+s] = true
	}
	used := map[string]bool{}
	for _, e := range exprs {
		for _, n := range metricName.FindAllString(e, -1) {
			used[n] = true
			if !served[n] {
				t.Errorf("the dashboard queries %s, which storbench does not serve: %s", n, e)
			}
		}
	}
	for _, n := range []string{metrics.NameOps, metrics.NameBytes, metrics.NameErrors, metrics.NameLatency + "_bucket", metrics.NameState} {
		if !used[n] {
			t.Errorf("the dashboard does not show %s", n)
		}
	}
}
