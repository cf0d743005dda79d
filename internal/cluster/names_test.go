package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/testutil"
)

// namesEngine is tickEngine that keeps the hosts' names each host's
// engine was given.
type namesEngine struct {
	tickEngine
	mu   *sync.Mutex
	seen map[string][]string
}

func (e namesEngine) Prepare(ctx context.Context, env engine.Env, p engine.Phase) (engine.Prepared, error) {
	e.mu.Lock()
	e.seen[env.Host] = env.Names
	e.mu.Unlock()
	return e.tickEngine.Prepare(ctx, env, p)
}

// Every remote agent's engine is given every host's name by rank, the
// names encoded once for the phase (Request.encode) rather than once per
// agent.
func TestRemoteAgentsAreGivenEveryHostsName(t *testing.T) {
	var mu sync.Mutex
	seen := map[string][]string{}
	reg := engine.Registry{"sbtest-tick": namesEngine{mu: &mu, seen: seen}}
	var agents []Agent
	var want []string
	for i := range 3 {
		name := fmt.Sprintf("host%d", i)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ta := serveAgent(t, name, reg, ln, func(s *Server) http.Handler { return s })
		a := remoteFor(ta, name)
		t.Cleanup(a.Close)
		agents, want = append(agents, a), append(want, name)
	}
	c := &Controller{Agents: agents, Engines: reg}
	if _, err := c.Connect(testutil.Ctx(t, testutil.Bound)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RunPhase(testutil.Ctx(t, testutil.Bound), "r", false, tickPhaseOf(t, 500, 500, 10)); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, h := range want {
		if !slices.Equal(seen[h], want) {
			t.Errorf("%s's engine was given the names %q, want %q", h, seen[h], want)
		}
	}
}

// BenchmarkPrepareBody is the controller's work to encode one agent's
// prepare request among 10,000 hosts (go test -bench PrepareBody
// -benchmem): every agent's carries every host's name.
func BenchmarkPrepareBody(b *testing.B) {
	req := Request{RunID: "r", Phase: tickPhaseOf(b, 500, 500, 10), Hosts: 10000}
	for i := range 10000 {
		req.Names = append(req.Names, fmt.Sprintf("agent%04d", i))
	}
	req.namesJSON, _ = json.Marshal(req.Names)
	b.Run("names-each-time", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = json.Marshal(req)
		}
	})
	b.Run("names-once", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = req.encode()
		}
	})
}

// Agents in one process given the same hosts' names hold one copy of
// them: the scale bench's farms serve 2,500 agents of 10,000 hosts each,
// and a copy each (10,000 strings, 120 KB decoded per agent) took a
// gigabyte and a fifth of a farm's CPU. Before, every prepare decoded
// its own.
func TestAgentsInOneProcessShareTheHostsNames(t *testing.T) {
	var names []string
	for i := range 1000 {
		names = append(names, fmt.Sprintf("agent%04d", i))
	}
	raw, _ := json.Marshal(names)
	a, err := hostNames(slices.Clone(raw))
	if err != nil {
		t.Fatal(err)
	}
	b, err := hostNames(slices.Clone(raw))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a, names) || &a[0] != &b[0] {
		t.Errorf("two agents' names: equal %v, one copy %v", slices.Equal(a, names), &a[0] == &b[0])
	}
	other, _ := json.Marshal(names[:3])
	if c, err := hostNames(other); err != nil || !slices.Equal(c, names[:3]) {
		t.Errorf("other names came back as %q (%v)", c, err)
	}
	if _, err := hostNames(json.RawMessage(`["a",`)); err == nil {
		t.Error("names that do not decode were taken")
	}
}
