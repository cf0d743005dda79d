package fio_test

import (
	"encoding/json"
	"testing"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/engine/fio"
	"github.com/storbench/storbench/internal/enginetest"
)

// The fio engine keeps the engine contract, running the real fio on a
// temporary directory.
func TestConformance(t *testing.T) {
	if _, err := fio.FindFio(""); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	enginetest.Suite{
		Engine: fio.Engine{},
		Env:    engine.Env{Host: "h1"},
		Target: enginetest.Files{Dir: dir},
		// The agent process runs the same engine: its refusals are
		// the ones a remote run meets.
		ThroughAgent: true,
		Phase: func(t *testing.T, name string, long bool) engine.Phase {
			runtime := "1"
			if long {
				runtime = "600"
			}
			job := "[global]\nioengine=psync\nsize=2m\nbs=4k\ntime_based=1\nruntime=" + runtime + "\n[j]\nrw=randrw\n"
			b, err := json.Marshal(fio.Params{Dir: dir, Job: fio.Job{Name: name, Text: job}})
			if err != nil {
				t.Fatal(err)
			}
			return engine.Phase{Name: name, Engine: "fio", Params: b}
		},
	}.Run(t)
}
