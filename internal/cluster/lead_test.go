package cluster

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/engine/fio"
	"github.com/storbench/storbench/internal/model"
)

// A phase whose engine starts its hosts together at its own barrier (md),
// or whose load Prepare started and holds at a start line (fio's gate),
// starts TogetherLead after its preparation, not the controller's whole
// lead, which only gives hosts time to be ready by a common start time;
// a phase of an engine without that barrier keeps the whole lead. With
// the 2-s lead of remote agents, each md phase waited 2 s for nothing
// (a 50-item md -N 1 run on four GlusterFS clients took 3.4 s, 2 of them
// that wait).
func TestLeadOfPhasesThatStartTogether(t *testing.T) {
	var agents []Agent
	for _, name := range []string{"h0", "h1"} {
		agents = append(agents, remoteFor(startAgent(t, name, nil), name))
	}
	c := newController(agents...)
	c.Lead = 2 * time.Second
	if _, err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	params, _ := json.Marshal(map[string]any{"dir": t.TempDir(), "items": 10, "workers": 1, "unique_dir": true})
	type leadCase struct {
		phase    engine.Phase
		together bool
	}
	cases := []leadCase{
		{engine.Phase{Name: "md", Engine: "md", Params: params}, true},
		{tickPhaseOf(t, 100, 50, 1), false},
	}
	if _, err := fio.FindFio(""); err == nil {
		fioPhase := func(name, text string) engine.Phase {
			b, _ := json.Marshal(fio.Params{Dir: t.TempDir(), Job: fio.Job{Name: name, Text: text}})
			return engine.Phase{Name: name, Engine: model.EngineFio, Params: b}
		}
		// fio started at Prepare, its jobs at the gate; and a job file
		// of two groups, started by Run.
		cases = append(cases,
			leadCase{fioPhase("held", "[global]\nioengine=psync\nsize=1m\n[r]\nrw=read\n"), true},
			leadCase{fioPhase("groups", "[global]\nioengine=psync\nsize=1m\n[r]\nrw=read\n[w]\nstonewall\nrw=write\n"), false})
	}
	for _, tc := range cases {
		t0 := time.Now()
		out, err := c.RunPhase(context.Background(), "lead", false, tc.phase)
		if err != nil {
			t.Fatal(err)
		}
		// The lead counts from the end of preparation (and of the
		// removals awaited), which is after t0.
		lead := out.Start.Sub(t0) - out.Prepare
		switch {
		case tc.together && lead >= c.Lead:
			t.Errorf("%s: started %s after its preparation, want about %s (its engine starts the hosts together)", tc.phase.Name, lead, TogetherLead)
		case !tc.together && out.Start.Sub(t0) < c.Lead:
			t.Errorf("%s: started %s after the phase began, want the whole lead of %s at least", tc.phase.Name, out.Start.Sub(t0), c.Lead)
		}
	}
}

// The lead of a phase ready once prepared grows with the agents the run
// requests go to, never past the controller's own: 4 agents 54 ms, 1,000
// agents 1.05 s (a round of requests to 1,000 took about 0.6 s), 10,000
// the whole 2-s lead of remote agents.
func TestTogetherLeadGrowsWithTheAgents(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want time.Duration
	}{{1, 51 * time.Millisecond}, {4, 54 * time.Millisecond}, {1000, 1050 * time.Millisecond}, {10000, 2 * time.Second}} {
		if got := togetherLead(tc.n, 2*time.Second); got != tc.want {
			t.Errorf("%d agents: lead %v, want %v", tc.n, got, tc.want)
		}
	}
}
