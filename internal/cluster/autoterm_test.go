package cluster

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// --autoterm across hosts: the controller judges the total throughput and
// stops every host together, long before the phase's duration; no host
// decides on its own.
func TestAutoTermOnTheTotal(t *testing.T) {
	a, b := startAgent(t, "a", nil), startAgent(t, "b", nil)
	ctrl := &Controller{Agents: []Agent{remoteFor(a, "a"), remoteFor(b, "b")}, Name: "test", MaxClockOffset: -1, Engines: testEngines}
	if _, err := ctrl.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	params, _ := json.Marshal(tickParams{DurationMs: 60_000, TickMs: 100, OpsPerTick: 10, AutoTerm: true})
	p := tickPhaseOf(t, 0, 0, 0)
	p.Params = params
	start := time.Now()
	out, err := ctrl.RunPhase(context.Background(), "r-autoterm", false, p)
	if err != nil {
		t.Fatalf("phase failed: %v", err)
	}
	took := time.Since(start)
	if out.StoppedBy != "autoterm" {
		t.Fatalf("phase not stopped by autoterm (took %s)", took)
	}
	if took > 20*time.Second {
		t.Errorf("autoterm took %s; the 1 s rule needs about 4 s of stable throughput", took)
	}
	if len(out.Results) != 2 {
		t.Fatalf("want both hosts' results, got %d", len(out.Results))
	}
	var ends []int64
	for _, r := range out.Results {
		if r.Err != "" || len(r.Ops) == 0 || r.Ops[0].Ops < 100 {
			t.Fatalf("host %s: %+v", r.Host, r)
		}
		ends = append(ends, r.Ops[0].EndNs)
	}
	// Stopped together: a host deciding alone would end after one tick.
	if d := time.Duration(ends[0] - ends[1]); d > time.Second || d < -time.Second {
		t.Errorf("hosts stopped %s apart", d)
	}
}
