package all

import (
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

// Every engine decodes its settings for the spine once (engine.Decoder):
// a plan's phases keep them, so the engines' hooks do not decode the JSON
// again.
func TestEveryEngineDecodesOnce(t *testing.T) {
	reg := Engines()
	plan := reg.Decode([]engine.Phase{
		{Name: "f", Engine: model.EngineFio, Params: json.RawMessage(`{"dir": "/tmp", "job": {"name": "j", "text": "[j]\nrw=read\nsize=1m\n"}}`)},
		{Name: "m", Engine: model.EngineMD, Params: json.RawMessage(`{"dir": "/tmp", "items": 10}`)},
		{Name: "s", Engine: model.EngineS3, Params: json.RawMessage(`{"op": "get", "host": "localhost:9000"}`)},
	})
	for _, p := range plan {
		if _, ok := p.Decoded(); !ok {
			t.Errorf("%s phase: its settings were not decoded and kept", p.Engine)
		}
	}
	for _, n := range reg.Names() {
		if _, ok := reg[n].(engine.Decoder); !ok {
			t.Errorf("engine %s decodes no settings for the spine (engine.Decoder)", n)
		}
	}
}
