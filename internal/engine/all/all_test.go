package all

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
)

// engineType finds the engine a package defines.
var engineType = regexp.MustCompile(`(?m)^type Engine struct`)

// The list holds every engine package of internal/engine, under the name
// of its package (the name suites and results use), so an engine that is
// written and not listed fails here; adding one is its package and its
// line in Engines.
func TestEveryEngineListed(t *testing.T) {
	var want []model.EngineName
	dirs, err := filepath.Glob("../*")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		files, _ := filepath.Glob(filepath.Join(d, "*.go"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err == nil && !strings.HasSuffix(f, "_test.go") && engineType.Match(b) {
				want = append(want, model.EngineName(filepath.Base(d)))
				break
			}
		}
	}
	slices.Sort(want)
	got := Engines().Names()
	if len(want) < 3 || !slices.Equal(got, want) {
		t.Errorf("engines %v, want the engine packages %v", got, want)
	}
	names := make([]string, len(got))
	for i, n := range got {
		names[i] = string(n)
	}
	if _, err := Engines().Lookup("nfs-nowhere"); err == nil || err.Error() != `unknown engine "nfs-nowhere" (known: `+strings.Join(names, ", ")+")" {
		t.Errorf("unknown engine: %v", err)
	}
}

// Every engine decodes a phase into its plan (Engine.Plan), the one place
// its settings are decoded, and a phase's headline, autoterm and probe are
// answered by that plan: fio's headline by its block size, s3's autoterm
// rule with the phase without it.
func TestEveryEnginePlansItsPhases(t *testing.T) {
	reg := Engines()
	phases := []engine.Phase{
		{Name: "f", Engine: model.EngineFio, Params: json.RawMessage(`{"dir": "/tmp", "job": {"name": "j", "text": "[j]\nrw=read\nsize=1m\n"}}`)},
		{Name: "m", Engine: model.EngineMD, Params: json.RawMessage(`{"dir": "/tmp", "items": 10}`)},
		{Name: "s", Engine: model.EngineS3, Params: json.RawMessage(`{"op": "get", "host": "localhost:9000", "autoterm": true}`)},
	}
	for _, p := range phases {
		if _, err := reg.Plan(p); err != nil {
			t.Errorf("%s phase: %v", p.Engine, err)
		}
	}
	if h := reg.Headline(phases[0], map[string]string{"bs": "4k"}); h != model.HeadlineIOPS {
		t.Errorf("fio at bs 4k: headline %q, want %q", h, model.HeadlineIOPS)
	}
	if h := reg.Headline(phases[1], nil); h != "" {
		t.Errorf("md chose headline %q", h)
	}
	term, without, ok := reg.AutoTerm(phases[2])
	if !ok || term.Pct == 0 || strings.Contains(string(without.Params), "autoterm") {
		t.Errorf("s3 autoterm: %+v, %s, %v", term, without.Params, ok)
	}
	if _, _, ok := reg.AutoTerm(phases[0]); ok {
		t.Error("a fio phase has an autoterm rule")
	}
	if _, ok, err := reg.Probe(context.Background(), engine.Env{}, phases[1]); ok || err != nil {
		t.Errorf("md probes: %v, %v", ok, err)
	}
}
