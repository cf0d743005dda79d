package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/storbench/storbench/internal/cpuload"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/analyze"
	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/report"
)

// fakeEngine is a fake engine for the run's tests: no storage is touched.
// A phase records Ops operations of 1 ms (and Errors failed ones) spread
// over RunMs, sending a snapshot every 10 ms; it can fail its preparation,
// say its target lacks a feature, leave something behind, or run until
// its context ends. Its params may carry a "secret", which Redact hides.
type fakeEngine struct{ engine.Base }

type fakeParams struct {
	Ops         uint64 `json:"ops"`
	Errors      uint64 `json:"errors,omitempty"`
	RunMs       int    `json:"run_ms,omitempty"`
	FailPrepare string `json:"fail_prepare,omitempty"`
	Unsupported bool   `json:"unsupported,omitempty"`
	Leave       bool   `json:"leave,omitempty"`
	UntilStop   bool   `json:"until_stop,omitempty"`
	Secret      string `json:"secret,omitempty"`
	// Workers and FlatAt make a synthetic scale: Ops per worker, up to
	// FlatAt workers, over exactly RunMs (the rate flattens at FlatAt).
	Workers int `json:"workers,omitempty"`
	FlatAt  int `json:"flat_at,omitempty"`
	// Starved, when set, is what the engine's tool said as it gave up
	// for want of CPU: the host's client is starved.
	Starved string `json:"starved,omitempty"`
}

// fakeEngines is the registry of the run's tests.
var fakeEngines = engine.Registry{"fake": fakeEngine{}}

func (fakeEngine) params(p engine.Phase) (fakeParams, error) {
	var fp fakeParams
	err := engine.DecodeStrict(p.Params, &fp)
	return fp, err
}

func (e fakeEngine) Plan(p engine.Phase) (engine.Plan, error) {
	if _, err := e.params(p); err != nil {
		return nil, err
	}
	return engine.BasePlan{}, nil
}

// Info declares the fake's secret, which the registry hides.
func (fakeEngine) Info() engine.Info { return engine.Info{Secrets: []string{"secret"}} }

func (e fakeEngine) Prepare(_ context.Context, env engine.Env, p engine.Phase) (engine.Prepared, error) {
	fp, err := e.params(p)
	switch {
	case err != nil:
		return nil, err
	case fp.Unsupported:
		return nil, engine.Unsupported("fake: the target cannot do this")
	case fp.FailPrepare != "":
		return nil, errors.New(fp.FailPrepare)
	}
	return &fakePhase{p: fp, host: env.Host, name: p.Name}, nil
}

type fakePhase struct {
	p          fakeParams
	host, name string
}

func (f *fakePhase) Run(ctx context.Context, startAt time.Time, live engine.LiveFunc) (*engine.HostResult, error) {
	if err := engine.WaitUntil(ctx, startAt); err != nil {
		return nil, engine.Interrupted(err)
	}
	start := time.Now()
	end := start.Add(time.Duration(f.p.RunMs) * time.Millisecond)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	var runErr error
	for f.p.UntilStop || time.Now().Before(end) {
		select {
		case <-ctx.Done():
			runErr = engine.Interrupted(ctx.Err())
		case now := <-tick.C:
			if live != nil {
				live(engine.Snapshot{Host: f.host, Phase: f.name, Stage: "run", Elapsed: now.Sub(start),
					Ops: []record.Count{{Op: "op", Ops: f.p.Ops / 2}}})
			}
			continue
		}
		break
	}
	stop := time.Now()
	if f.p.FlatAt > 0 {
		// A synthetic rate, free of this machine's timing.
		f.p.Ops *= uint64(min(f.p.Workers, f.p.FlatAt))
		stop = start.Add(time.Duration(f.p.RunMs) * time.Millisecond)
	}
	st := record.OpStats{Op: "op", Ops: f.p.Ops, Errors: f.p.Errors, StartNs: start.UnixNano(), EndNs: stop.UnixNano()}
	if f.p.Ops > 0 {
		st.Lat = record.Hist{Bins: record.Bins{{V: 1_000_000, N: f.p.Ops}}, Stats: record.StatsFromMoments(f.p.Ops, 1_000_000, 1_000_000, 1_000_000, 0)}
	}
	res := &engine.HostResult{Host: f.host, Ops: []record.OpStats{st}}
	if f.p.Starved != "" {
		res.Client = cpuload.GaveUp(nil, f.p.Starved)
	}
	return res, runErr
}

func (f *fakePhase) Cleanup(context.Context) error {
	if f.p.Leave {
		n := int64(3)
		return &engine.LeftoverError{Items: []engine.Leftover{{What: "objects", Where: "fake/" + f.name + "/", Count: &n, Reason: "cleanup: fake refusal"}}}
	}
	return nil
}

// fakePhaseOf is a phase of the fake engine.
func fakePhaseOf(t *testing.T, name string, p fakeParams) engine.Phase {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return engine.Phase{Name: name, Engine: "fake", Params: b}
}

// recordingSink keeps what a run told it, in order, as lines such as
// "phase started p1 on [h]".
type recordingSink struct {
	mu        sync.Mutex
	events    []string
	progress  int
	done      []PhaseDone
	startedIn string
}

var _ Sink = (*recordingSink)(nil)

func (s *recordingSink) add(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, fmt.Sprintf(format, args...))
}

func (s *recordingSink) Started(runID, folder string) {
	s.mu.Lock()
	s.startedIn = folder
	s.mu.Unlock()
	s.add("started")
}

func (s *recordingSink) PhaseStarted(ph engine.Phase, hosts []string) {
	s.add("phase started %s on %v", ph.Name, hosts)
}

func (s *recordingSink) Progress(p cluster.Progress) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.progress++
}

func (s *recordingSink) PhaseDone(d PhaseDone) {
	s.add("phase done %s %s ran=%v", d.Summary.Name, d.Summary.Status, d.Ran)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done = append(s.done, d)
}

func (s *recordingSink) Note(n Note) { s.add("note %d %s", n.Kind, n.Text) }

// runner is a Runner over the fake engines, writing under a temporary
// results root.
func runner(t *testing.T) (*Runner, *recordingSink, string) {
	t.Helper()
	sink := &recordingSink{}
	root := filepath.Join(t.TempDir(), "results")
	return &Runner{Engines: fakeEngines, Sink: sink, Version: "test", Renderers: report.Renderers(),
		Analysis: Analysis{EventImpacts: analyze.EventImpacts, ScaleRules: analyze.ScaleRules()}}, sink, root
}

// folders lists the results folders under root.
func folders(t *testing.T, root string) []string {
	t.Helper()
	ents, err := os.ReadDir(root)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, filepath.Join(root, e.Name()))
	}
	return out
}
