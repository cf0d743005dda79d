package md_test

import (
	"encoding/json"
	"testing"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/engine/md"
	"github.com/storbench/storbench/internal/enginetest"
)

// The md engine keeps the engine contract on a temporary directory.
func TestConformance(t *testing.T) {
	dir := t.TempDir()
	enginetest.Suite{
		Engine: md.Engine{},
		Env:    engine.Env{Host: "h1"},
		Target: enginetest.Files{Dir: dir},
		// The agent process runs the same engine: its refusals are
		// the ones a remote run meets.
		ThroughAgent: true,
		Phase: func(t *testing.T, name string, long bool) engine.Phase {
			// md runs until its items are done: a long phase has more
			// than any test waits for.
			items := 200
			if long {
				items = 50_000_000
			}
			b, err := json.Marshal(map[string]any{"dir": dir, "items": items, "workers": 2, "unique_dir": true, "depth": 1, "branch": 2})
			if err != nil {
				t.Fatal(err)
			}
			return engine.Phase{Name: name, Engine: "md", Params: b}
		},
	}.Run(t)
}
