package run

import (
	"fmt"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/engine"
)

// toolEngine is the fake engine with an outside tool, as fio has one.
type toolEngine struct{ fakeEngine }

func (toolEngine) Info() engine.Info { return engine.Info{Tool: &engine.Tool{Name: "tally"}} }

// A refusal for agents that lack a phase's tool names a few of them and
// counts the rest: one line a person can read, at 3 agents or 3,000.
func TestAgentsLackingAToolNamedInOneShortLine(t *testing.T) {
	r := &Runner{Engines: engine.Registry{"tool": toolEngine{}}}
	p := Plan{Phases: []engine.Phase{{Name: "count", Engine: "tool"}}}
	for _, n := range []int{1, 3, 5000} {
		infos := make([]cluster.Info, n)
		for i := range infos {
			infos[i].Host = fmt.Sprintf("client%04d", i)
		}
		err := checkAgentTools(p, r, infos)
		if err == nil {
			t.Fatalf("%d agents without the tool: accepted", n)
		}
		msg := err.Error()
		if len(msg) > 300 || strings.Contains(msg, "\n") {
			t.Errorf("%d agents: %d characters: %s", n, len(msg), msg)
		}
		if !strings.Contains(msg, "client0000") || !strings.Contains(msg, "--tool tally=PATH") {
			t.Errorf("%d agents: names neither the first agent nor the fix: %s", n, msg)
		}
		if n > 3 && !strings.Contains(msg, fmt.Sprintf("and %d more", n-3)) {
			t.Errorf("%d agents: does not count the rest: %s", n, msg)
		}
	}
}
