package cluster

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/testutil"
)

// togetherEngine is tickEngine whose preparation, and then whose run,
// waits until every one of the agents has begun its own: a controller
// that took a few agents' whole stages at a time would never get past it.
type togetherEngine struct {
	tickEngine
	prepared, runs *together
}

type togetherPhase struct {
	engine.Prepared
	e togetherEngine
}

func (e togetherEngine) Prepare(ctx context.Context, env engine.Env, p engine.Phase) (engine.Prepared, error) {
	if err := e.prepared.begin(ctx); err != nil {
		return nil, err
	}
	pr, err := e.tickEngine.Prepare(ctx, env, p)
	if err != nil {
		return nil, err
	}
	return togetherPhase{pr, e}, nil
}

func (t togetherPhase) Run(ctx context.Context, startAt time.Time, live engine.LiveFunc) (*engine.HostResult, error) {
	if err := t.e.runs.begin(ctx); err != nil {
		return nil, err
	}
	return t.Prepared.Run(ctx, startAt, live)
}

// together counts the agents that began a stage; all is closed once n did.
type together struct {
	what  string
	n     int
	mu    sync.Mutex
	begun int
	all   chan struct{}
}

func newTogether(what string, n int) *together {
	return &together{what: what, n: n, all: make(chan struct{})}
}

// begin counts one more agent and waits until all have begun.
func (g *together) begin(ctx context.Context) error {
	g.mu.Lock()
	if g.begun++; g.begun == g.n {
		close(g.all)
	}
	g.mu.Unlock()
	t := time.NewTimer(testutil.Bound)
	defer t.Stop()
	select {
	case <-g.all:
		return nil
	case <-t.C:
	case <-ctx.Done():
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return fmt.Errorf("only %d of %d agents' %s were under way together", g.begun, g.n, g.what)
}

// A controller of thousands of agents begins a stage (prepare, run,
// cleanup) on at most atOnce of them at a time, each until the agent
// answers, and the stages themselves still run together: every agent
// prepares, and runs, at once. Before, prepare, run and cleanup requests
// went to every agent at once: 10,000 agents' prepares waited for a CPU
// past the 10 s the controller gave an answer, and the phase failed. The
// agents here take 100 ms to answer a stage's request.
func TestStagesBeginAFewAgentsAtATime(t *testing.T) {
	n := 2*atOnce + 32
	e := togetherEngine{prepared: newTogether("preparations", n), runs: newTogether("runs", n)}
	reg := engine.Registry{"sbtest-together": e}
	var waiting, peak atomic.Int32
	slow := func(srv *Server) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			stage := strings.TrimPrefix(r.URL.Path, PathPrefix+"/")
			if stage == "prepare" || stage == "run" || stage == "cleanup" {
				k := waiting.Add(1)
				for p := peak.Load(); k > p && !peak.CompareAndSwap(p, k); p = peak.Load() {
				}
				time.Sleep(100 * time.Millisecond)
				waiting.Add(-1)
			}
			srv.ServeHTTP(w, r)
		})
	}
	var agents []Agent
	for i := range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ta := serveAgent(t, fmt.Sprintf("h%03d", i), reg, ln, slow)
		// The test is of calls begun, not of heartbeats: 160 agents in
		// one process on a loaded machine may miss the usual 3 s.
		ra := remoteFor(ta, ta.srv.Agent.Host)
		ra.HeartbeatTimeout = time.Minute
		agents = append(agents, ra)
	}
	for _, a := range agents {
		t.Cleanup(a.(*RemoteAgent).Close)
	}
	c := &Controller{Agents: agents, Engines: reg}
	if _, err := c.Connect(testutil.Ctx(t, testutil.Bound)); err != nil {
		t.Fatal(err)
	}
	p := tickPhaseOf(t, 500, 250, 10)
	p.Engine = "sbtest-together"
	// 160 agents' servers and their controller in one process under
	// -race: at a load of 25 the phase outlasted the usual 2 minutes.
	out, err := c.RunPhase(testutil.Ctx(t, 3*testutil.Bound), "r", false, p)
	if err != nil {
		t.Fatalf("the phase failed: %v", err)
	}
	if len(out.Results) != n || len(out.Lost) > 0 || len(out.Errors) > 0 {
		t.Fatalf("%d results of %d agents, lost %v, errors %v", len(out.Results), n, out.Lost, out.Errors)
	}
	if p := peak.Load(); p > atOnce {
		t.Errorf("%d agents were asked to begin a stage at once, want at most %d", p, atOnce)
	}
}
