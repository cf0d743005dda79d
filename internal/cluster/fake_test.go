package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/engine/fio"
	"github.com/storbench/storbench/internal/engine/md"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/record"
)

// testEngines are the engines this package's tests run: test engines that
// tick, meet at barriers, leave things behind or wait to be stopped, the
// real md engine for barriers across hosts, and the real fio engine.
var testEngines = engine.Registry{
	"sbtest-tick":    tickEngine{},
	"sbtest-barrier": barrierEngine{},
	"sbtest-left":    leftEngine{},
	"sbtest-stop":    fakeStopEngine{},
	model.EngineMD:   md.Engine{},
	model.EngineFio:  fio.Engine{},
}

// tickEngine is a test engine: it "does" OpsPerTick operations of 1 ms
// (bins at 1 ms and 2 ms) each Tick until Duration, sending a snapshot per
// tick. It records when its load stopped, so tests can time a stop.
type tickEngine struct{ engine.Base }

type tickParams struct {
	DurationMs int `json:"duration_ms"`
	TickMs     int `json:"tick_ms"`
	OpsPerTick int `json:"ops_per_tick"`
	// AutoTerm asks for warp-style autoterm (stable within 50% for 1 s). A
	// host that still sees it set stops after its first tick, so a test
	// notices when the controller failed to take the decision over.
	AutoTerm bool `json:"autoterm,omitempty"`
}

// tickPlan is a tick phase's plan: its autoterm rule.
type tickPlan struct {
	engine.BasePlan
	phase engine.Phase
	tp    tickParams
}

func (tickEngine) Plan(p engine.Phase) (engine.Plan, error) {
	var tp tickParams
	err := json.Unmarshal(p.Params, &tp)
	return tickPlan{phase: p, tp: tp}, err
}

func (pl tickPlan) AutoTerm() (record.AutoTerm, engine.Phase, bool) {
	if !pl.tp.AutoTerm {
		return record.AutoTerm{}, pl.phase, false
	}
	p, tp := pl.phase, pl.tp
	tp.AutoTerm = false
	p.Params, _ = json.Marshal(tp)
	return record.AutoTerm{Pct: 50, MinDur: time.Second}, p, true
}

// loadStops receives, per host, when a tick phase's load stopped and why.
var loadStops sync.Map // host -> chan stopEvent

type stopEvent struct {
	at       time.Time
	canceled bool
}

func (tickEngine) Prepare(ctx context.Context, env engine.Env, p engine.Phase) (engine.Prepared, error) {
	var tp tickParams
	if err := json.Unmarshal(p.Params, &tp); err != nil {
		return nil, err
	}
	if tp.TickMs == 0 {
		tp.TickMs = 1000
	}
	return &tickPhase{env: env, p: tp, name: p.Name}, nil
}

type tickPhase struct {
	env     engine.Env
	p       tickParams
	name    string
	cleaned atomic.Bool
}

func (t *tickPhase) Run(ctx context.Context, startAt time.Time, live engine.LiveFunc) (*engine.HostResult, error) {
	if err := engine.WaitUntil(ctx, startAt); err != nil {
		return nil, err
	}
	start := time.Now()
	var ops uint64
	var series []record.Second
	tick := time.NewTicker(time.Duration(t.p.TickMs) * time.Millisecond)
	defer tick.Stop()
	end := start.Add(time.Duration(t.p.DurationMs) * time.Millisecond)
	last := start
	canceled := false
loop:
	for time.Now().Before(end) {
		select {
		case <-ctx.Done():
			canceled = true
			break loop
		case now := <-tick.C:
			n := uint64(t.p.OpsPerTick)
			ops += n
			series = append(series, record.Second{StartNs: last.UnixNano(), EndNs: now.UnixNano(), Op: "tick", Ops: n, Bytes: n * 4096})
			last = now
			if live != nil {
				live(engine.Snapshot{Host: t.env.Host, Phase: t.name, Stage: "run", Elapsed: now.Sub(start), Ops: []record.Count{{Op: "tick", Ops: ops, Bytes: ops * 4096}}})
			}
			if t.p.AutoTerm {
				break loop
			}
		}
	}
	stop := time.Now()
	if ch, ok := loadStops.Load(t.env.Host); ok {
		select {
		case ch.(chan stopEvent) <- stopEvent{at: stop, canceled: canceled}:
		default:
		}
	}
	// Half the ops at 1 ms, half at 2 ms, so percentiles are easy to check.
	bins := record.Bins{{V: 1_000_000, N: ops - ops/2}, {V: 2_000_000, N: ops / 2}}
	if ops == 0 {
		bins = nil
	}
	res := &engine.HostResult{Host: t.env.Host, Series: series, Ops: []record.OpStats{{
		Op: "tick", Ops: ops, Bytes: ops * 4096, StartNs: start.UnixNano(), EndNs: stop.UnixNano(),
		Lat: record.Hist{Bins: bins, Stats: record.StatsFromMoments(ops, 1_000_000, 2_000_000, 1_500_000, 500_000)},
	}}}
	if canceled {
		return res, ctx.Err()
	}
	return res, nil
}

func (t *tickPhase) Cleanup(ctx context.Context) error {
	t.cleaned.Store(true)
	return nil
}

func tickPhaseOf(t testing.TB, durMs, tickMs, ops int) engine.Phase {
	t.Helper()
	b, err := json.Marshal(tickParams{DurationMs: durMs, TickMs: tickMs, OpsPerTick: ops})
	if err != nil {
		t.Fatal(err)
	}
	return engine.Phase{Name: "tick", Engine: "sbtest-tick", Params: b}
}

// testAgent is an agent server on a loopback port.
type testAgent struct {
	srv  *Server
	hs   *http.Server
	ln   net.Listener
	addr string
	logs chan string
}

const testToken = "test-token-not-secret-0123456789"

// noClientLoad is the NoClientLoad of the agents this package's tests
// run in their own process: none measures the host's CPU over a run.
// Each agent's monitor reads the process table once a second, which
// under -race, with 160 agents in one process, took 69 of
// TestStagesBeginAFewAgentsAtATime's 77 CPU seconds; no test of this
// process asks for a client's figures (the agent processes of the
// *_procs_test.go files measure them).
const noClientLoad = true

// startAgent starts the agent of host name on a loopback port, mod (if
// not nil) changing its Server before it serves.
func startAgent(t testing.TB, name string, mod func(*Server)) *testAgent {
	t.Helper()
	return startAgentOn(t, name, mod, nil)
}

// startAgentOn is startAgent serving the connections wrap (if not nil)
// hands on from the agent's listener.
func startAgentOn(t testing.TB, name string, mod func(*Server), wrap func(net.Listener) net.Listener) *testAgent {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ta := &testAgent{ln: ln, addr: ln.Addr().String(), logs: make(chan string, 100)}
	ta.srv = &Server{Agent: &LocalAgent{Host: name, Version: "test", Engines: testEngines, NoClientLoad: noClientLoad}, Token: testToken, Logf: ta.logf}
	if mod != nil {
		mod(ta.srv)
	}
	ta.hs = ta.srv.HTTPServer()
	served := ln
	if wrap != nil {
		served = wrap(ln)
	}
	go func() { _ = ta.hs.Serve(served) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = ta.srv.Close(ctx)
		_ = ta.hs.Close()
	})
	return ta
}

// kill ends the agent as SIGKILL would: the listener and every connection
// close at once and nothing is cleaned up.
func (ta *testAgent) kill() {
	_ = ta.hs.Close()
}

// serveAgent serves an agent with engines reg on ln, its requests going
// through the handler h gives for its Server.
func serveAgent(t testing.TB, name string, reg engine.Registry, ln net.Listener, h func(*Server) http.Handler) *testAgent {
	t.Helper()
	ta := &testAgent{ln: ln, addr: ln.Addr().String(), logs: make(chan string, 100)}
	ta.srv = &Server{Agent: &LocalAgent{Host: name, Version: "test", Engines: reg, Tools: engine.Tools{"fio": "/nonexistent/fio"}, NoClientLoad: noClientLoad}, Token: testToken, Logf: ta.logf}
	ta.hs = ta.srv.HTTPServer()
	ta.hs.Handler = h(ta.srv)
	go func() { _ = ta.hs.Serve(ln) }()
	t.Cleanup(func() { _ = ta.hs.Close() })
	return ta
}

// logf keeps a line of the agent's log in logs (up to 100 lines).
func (ta *testAgent) logf(format string, args ...any) {
	select {
	case ta.logs <- time.Now().Format("15:04:05.000 ") + fmt.Sprintf(format, args...):
	default:
	}
}

// testKnob is the heartbeat timeout of the controllers of this package's
// tests that are not about heartbeats. The agents and the controller live
// in one test process, under -race, on a machine other work loads: there
// the default 3 s went by without a heartbeat (up to 5.2 s at a load of
// 30 on 2 cores) and agents ended phases that tests of other things ran.
// Heartbeats still go (every 1.7 s) and share the agent's connection; a
// killed agent is still lost at once (its connections close). The tests
// of heartbeats and silences set the knob they are about.
const testKnob = 10 * time.Second

func remoteFor(ta *testAgent, name string) *RemoteAgent {
	return &RemoteAgent{Addr: ta.addr, Host: name, Token: testToken, Controller: "test-controller", HeartbeatTimeout: testKnob}
}
