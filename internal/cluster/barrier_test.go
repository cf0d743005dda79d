package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/results"
)

// barrierEngine is a test engine that only meets the other hosts: it waits
// at Barriers barriers in turn, bringing "<host>@<rank>/<i>", and reports
// each release as an operation "b<i>" whose window starts at the release's
// common start and ends when this host saw it. Meta "b<i>" lists what every
// host brought ("-" for a host that left). StallHost stops at barrier
// StallAt without arriving (until its context ends); QuitHost ends its run
// just before barrier QuitAt.
type barrierEngine struct{ engine.Base }

type barrierParams struct {
	Barriers  int    `json:"barriers"`
	StallHost string `json:"stall_host,omitempty"`
	StallAt   int    `json:"stall_at,omitempty"`
	QuitHost  string `json:"quit_host,omitempty"`
	QuitAt    int    `json:"quit_at,omitempty"`
}

// barrierStalls receives the host's name when a stalling host stops, and
// barrierArrivals each host's arrival at the stall barrier, so a test can
// act then.
var (
	barrierStalls   = make(chan string, 8)
	barrierArrivals = make(chan string, 64)
)

func (barrierEngine) Prepare(ctx context.Context, env engine.Env, p engine.Phase) (engine.Prepared, error) {
	var bp barrierParams
	if err := json.Unmarshal(p.Params, &bp); err != nil {
		return nil, err
	}
	return &barrierPhase{env: env, p: bp}, nil
}

type barrierPhase struct {
	env engine.Env
	p   barrierParams
}

func (b *barrierPhase) Cleanup(context.Context) error { return nil }

func (b *barrierPhase) Run(ctx context.Context, startAt time.Time, live engine.LiveFunc) (*engine.HostResult, error) {
	res := &engine.HostResult{Host: b.env.Host, Meta: map[string]string{
		"hosts": fmt.Sprint(b.env.Hosts), "rank": fmt.Sprint(b.env.Rank)}}
	if err := engine.WaitUntil(ctx, startAt); err != nil {
		return res, err
	}
	if b.env.Barrier == nil {
		res.Meta["barrier"] = "none"
		return res, nil
	}
	for i := range b.p.Barriers {
		if b.env.Host == b.p.QuitHost && i == b.p.QuitAt {
			return res, nil
		}
		if b.env.Host == b.p.StallHost && i == b.p.StallAt {
			barrierStalls <- b.env.Host
			<-ctx.Done()
			return res, ctx.Err()
		}
		if i == b.p.StallAt {
			barrierArrivals <- b.env.Host
		}
		arrived := time.Now()
		rel, err := b.env.Barrier.Wait(ctx, fmt.Sprintf("b%d", i), fmt.Appendf(nil, "%s@%d/%d", b.env.Host, b.env.Rank, i))
		if err != nil {
			return res, err
		}
		got := time.Now()
		var data []string
		for _, a := range rel.Hosts {
			if a.Left {
				data = append(data, a.Host+"=-")
				continue
			}
			data = append(data, a.Host+"="+string(a.Data))
		}
		res.Meta[fmt.Sprintf("b%d", i)] = strings.Join(data, ",")
		res.Meta[fmt.Sprintf("arrived%d", i)] = fmt.Sprint(arrived.UnixNano())
		res.Ops = append(res.Ops, record.OpStats{Op: fmt.Sprintf("b%d", i), Ops: 1,
			StartNs: rel.Start.UnixNano(), EndNs: got.UnixNano(),
			Iterations: []record.Iteration{{Items: 1, StartNs: rel.Start.UnixNano(), EndNs: got.UnixNano()}}})
		// Begin at the common start, as an engine does.
		if err := engine.WaitUntil(ctx, rel.Start); err != nil {
			return res, err
		}
	}
	return res, nil
}

func barrierPhaseOf(t *testing.T, p barrierParams) engine.Phase {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return engine.Phase{Name: "barrier", Engine: "sbtest-barrier", Params: b}
}

// Hosts meet at every barrier: two remote agents (one with its clock 700 ms
// ahead) and one in-process agent get one common start per barrier, the
// same instant once back in the controller's clock, a lead after the last
// arrival, and each learns what every host brought.
func TestBarrierAcrossHosts(t *testing.T) {
	a0 := startAgent(t, "a0", nil)
	a2 := startAgent(t, "a2", func(s *Server) { s.ClockSkew = 700 * time.Millisecond })
	c := newController(remoteFor(a0, "h0"), &LocalAgent{Host: "h1", Version: "test", Engines: testEngines}, remoteFor(a2, "h2"))
	c.MaxClockOffset = -1
	if _, err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	const n = 5
	out, err := c.RunPhase(context.Background(), "run1", false, barrierPhaseOf(t, barrierParams{Barriers: n, StallAt: -1, QuitAt: -1}))
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != 3 {
		t.Fatalf("%d results", len(out.Results))
	}
	for i := range n {
		var start int64
		var last int64
		want := fmt.Sprintf("h0=h0@0/%d,h1=h1@1/%d,h2=h2@2/%d", i, i, i)
		for r, res := range out.Results {
			if res.Meta["hosts"] != "3" || res.Meta["rank"] != fmt.Sprint(r) {
				t.Errorf("host %s: hosts %s rank %s", res.Host, res.Meta["hosts"], res.Meta["rank"])
			}
			if got := res.Meta[fmt.Sprintf("b%d", i)]; got != want {
				t.Errorf("barrier %d on %s: hosts brought %q, want %q", i, res.Host, got, want)
			}
			if len(res.Ops) != n {
				t.Fatalf("host %s passed %d barriers of %d", res.Host, len(res.Ops), n)
			}
			s := res.Ops[i].Iterations[0].StartNs
			if r == 0 {
				start = s
			} else if s != start {
				t.Errorf("barrier %d: host %s starts %s after host h0", i, res.Host, time.Duration(s-start))
			}
			var arr int64
			fmt.Sscan(res.Meta[fmt.Sprintf("arrived%d", i)], &arr)
			if res.Host == "h2" {
				arr -= int64(700 * time.Millisecond) // its own clock
			}
			last = max(last, arr)
		}
		if lead := time.Duration(start - last); lead < BarrierLead/2 || lead > time.Second {
			t.Errorf("barrier %d: common start %s after the last arrival", i, lead)
		}
	}
}

// One host on its own runs without a barrier: nothing crosses the network
// between its stages.
func TestBarrierNoneOnOneHost(t *testing.T) {
	ta := startAgent(t, "a", nil)
	for _, a := range []Agent{&LocalAgent{Host: "l", Version: "test", Engines: testEngines}, remoteFor(ta, "r")} {
		out, err := newController(a).RunPhase(context.Background(), "run1", false, barrierPhaseOf(t, barrierParams{Barriers: 3, StallAt: -1, QuitAt: -1}))
		if err != nil {
			t.Fatal(err)
		}
		if m := out.Results[0].Meta; m["barrier"] != "none" || m["hosts"] != "1" {
			t.Errorf("%s: barrier %q, hosts %q", a.Name(), m["barrier"], m["hosts"])
		}
	}
}

// A host whose run ends (it finished early, failed or stopped) no longer
// holds the others: the next barriers open without it, and say it left.
func TestBarrierHostLeaves(t *testing.T) {
	var agents []Agent
	for i := range 3 {
		agents = append(agents, remoteFor(startAgent(t, fmt.Sprint("a", i), nil), fmt.Sprint("h", i)))
	}
	c := newController(agents...)
	if _, err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	out, err := c.RunPhase(context.Background(), "run1", false, barrierPhaseOf(t, barrierParams{Barriers: 4, QuitHost: "h1", QuitAt: 2, StallAt: -1}))
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range out.Results {
		if res.Host == "h1" {
			if len(res.Ops) != 2 {
				t.Errorf("h1 passed %d barriers before quitting at the third", len(res.Ops))
			}
			continue
		}
		if len(res.Ops) != 4 {
			t.Fatalf("host %s passed %d barriers of 4", res.Host, len(res.Ops))
		}
		if got, want := res.Meta["b3"], "h0=h0@0/3,h1=-,h2=h2@2/3"; got != want {
			t.Errorf("%s at the last barrier: %q, want %q", res.Host, got, want)
		}
	}
}

// A host lost while the others wait at a barrier (its agent killed) does
// not hang them: they are released as soon as the controller notices, the
// phase completes on them, and the host is reported lost.
func TestBarrierHostLost(t *testing.T) {
	var tas []*testAgent
	var agents []Agent
	for i := range 3 {
		ta := startAgent(t, fmt.Sprint("a", i), nil)
		tas = append(tas, ta)
		agents = append(agents, remoteFor(ta, fmt.Sprint("h", i)))
	}
	c := newController(agents...)
	if _, err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	for len(barrierStalls) > 0 {
		<-barrierStalls
	}
	for len(barrierArrivals) > 0 {
		<-barrierArrivals
	}
	var killed time.Time
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		<-barrierStalls
		for range 2 {
			<-barrierArrivals
		}
		time.Sleep(200 * time.Millisecond) // both others wait now
		killed = time.Now()
		tas[2].kill()
	}()
	out, err := c.RunPhase(context.Background(), "run1", false, barrierPhaseOf(t, barrierParams{Barriers: 3, StallHost: "h2", StallAt: 1, QuitAt: -1}))
	wg.Wait()
	if err != nil {
		t.Fatalf("the phase failed on the hosts that remained: %v", err)
	}
	if len(out.Lost) != 1 || out.Lost[0] != "h2" {
		t.Fatalf("lost %v", out.Lost)
	}
	if d := out.End.Sub(killed); d > DefaultSilence {
		t.Errorf("the others went on %s after the host was killed", d)
	}
	for _, res := range out.Results {
		if len(res.Ops) != 3 {
			t.Errorf("host %s passed %d barriers of 3", res.Host, len(res.Ops))
		}
		if got := res.Meta["b1"]; !strings.HasSuffix(got, ",h2=-") {
			t.Errorf("host %s at the barrier h2 never reached: %q", res.Host, got)
		}
	}
}

// md on three in-process agents (the race detector watches the engine and
// the hub together): every operation of every iteration starts at the same
// instant on all hosts, and each total lies between the slowest host's rate
// and the sum of the hosts' rates.
func TestMdAcrossLocalAgents(t *testing.T) {
	dir := t.TempDir()
	var agents []Agent
	for i := range 3 {
		agents = append(agents, &LocalAgent{Host: fmt.Sprint("h", i), Version: "test", Engines: testEngines, NoClientLoad: noClientLoad})
	}
	params, _ := json.Marshal(map[string]any{"dir": dir, "items": 100, "iterations": 2, "workers": 2, "unique_dir": true})
	out, err := newController(agents...).RunPhase(context.Background(), "run1", false, engine.Phase{Name: "md", Engine: "md", Params: params})
	if err != nil {
		t.Fatal(err)
	}
	ps := results.BuildPhase("md", "md", nil, out.Results)
	opOf := func(ops []results.OpSummary, name string) int {
		return slices.IndexFunc(ops, func(o results.OpSummary) bool { return o.Op == name })
	}
	for _, tot := range ps.Ops {
		for it, rate := range tot.Rate.PerIter {
			lo, sum := math.Inf(1), 0.0
			for h, ho := range ps.PerHost {
				k := opOf(ho.Ops, tot.Op)
				if strings.HasPrefix(tot.Op, "tree-") && h > 0 {
					// One tree is counted, by the first host.
					if k >= 0 {
						t.Errorf("host %s reports %s; only the first host counts the tree", ho.Host, tot.Op)
					}
					continue
				}
				r := ho.Ops[k].Rate.PerIter[it]
				lo, sum = math.Min(lo, r), sum+r
				k0 := opOf(ps.PerHost[0].Ops, tot.Op)
				if s, s0 := out.Results[h].Ops[k].Iterations[it].StartNs, out.Results[0].Ops[k0].Iterations[it].StartNs; s != s0 {
					t.Errorf("%s iteration %d: host %s starts %s after h0", tot.Op, it+1, ho.Host, time.Duration(s-s0))
				}
			}
			if rate < lo*(1-1e-9) || rate > sum*(1+1e-9) {
				t.Errorf("%s iteration %d: total %.0f op/s, hosts between %.0f and a sum of %.0f", tot.Op, it+1, rate, lo, sum)
			}
		}
	}
}
