package cluster

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
)

// leftEngine is a test engine whose cleanup cannot remove what it made: a
// FAKE standing in for a file system or server that refuses the deletes.
type leftEngine struct{ tickEngine }

type leftPhase struct{ *tickPhase }

func (leftEngine) Prepare(ctx context.Context, env engine.Env, p engine.Phase) (engine.Prepared, error) {
	pr, err := tickEngine{}.Prepare(ctx, env, p)
	if err != nil {
		return nil, err
	}
	return leftPhase{pr.(*tickPhase)}, nil
}

func (l leftPhase) Cleanup(ctx context.Context) error {
	n := int64(3)
	return &engine.LeftoverError{Items: []engine.Leftover{{What: "files and directories", Where: "/data/storbench/r/" + l.env.Host + "/left", Count: &n, Reason: "cleanup: operation not permitted"}}}
}

// What an agent's cleanup leaves reaches the controller typed, per host,
// across the protocol, instead of being dropped.
func TestCleanupLeftoversReachTheController(t *testing.T) {
	a := startAgent(t, "a", nil)
	b := startAgent(t, "b", nil)
	c := newController(remoteFor(a, "a"), remoteFor(b, "b"))
	p := tickPhaseOf(t, 300, 100, 5)
	p.Engine = "sbtest-left"
	out, err := c.RunPhase(context.Background(), "r", false, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Leftovers) != 2 {
		t.Fatalf("leftovers %+v, want one per host", out.Leftovers)
	}
	for i, h := range []string{"a", "b"} {
		l := out.Leftovers[i]
		if l.Host != h || l.Count == nil || *l.Count != 3 || l.Where != "/data/storbench/r/"+h+"/left" || !strings.Contains(l.Reason, "not permitted") {
			t.Errorf("leftover %d: %+v", i, l)
		}
	}
}

// An agent told to stop mid-run ends the phase gracefully: its partial
// result reaches the controller marked as stopped, it cleans up, and the
// next phase runs without it. Told to stop between phases, it takes none.
func TestAgentStopMidRunKeepsItsResult(t *testing.T) {
	a := startAgent(t, "a", nil)
	stopping := startAgent(t, "b", nil)
	c := newController(remoteFor(a, "a"), remoteFor(stopping, "b"))
	go func() {
		time.Sleep(1200 * time.Millisecond)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := stopping.srv.Stop(ctx, "terminated signal received"); err != nil {
			t.Errorf("stop: %v", err)
		}
	}()
	out, err := c.RunPhase(context.Background(), "r", false, tickPhaseOf(t, 2500, 100, 5))
	if err != nil {
		t.Fatalf("a stopped agent must not fail the phase: %v", err)
	}
	if len(out.Results) != 2 || len(out.Stopped) != 1 || out.Stopped[0] != "b" || len(out.Lost) != 0 {
		t.Fatalf("results %d, stopped %v, lost %v", len(out.Results), out.Stopped, out.Lost)
	}
	if !errors.Is(out.Errors["b"], ErrStopped) {
		t.Errorf("stopped host's error: %v", out.Errors["b"])
	}
	r := out.Results[1]
	if r.Host != "b" || len(r.Ops) == 0 || r.Ops[0].Ops == 0 || !strings.Contains(r.Err, "stopped by a signal") || r.Meta["stopped_by"] != "signal" {
		t.Errorf("stopped host's result: %+v", r)
	}
	if len(out.Leftovers) != 0 {
		t.Errorf("leftovers %+v", out.Leftovers)
	}
	out, err = c.RunPhase(context.Background(), "r", false, tickPhaseOf(t, 300, 100, 5))
	if err != nil || len(out.Results) != 1 || out.Results[0].Host != "a" {
		t.Fatalf("next phase: err %v, results %+v", err, out.Results)
	}
	// The stopped agent takes no new phase.
	err = remoteFor(stopping, "b").Prepare(context.Background(), Request{RunID: "r2", Phase: tickPhaseOf(t, 300, 100, 5)})
	if !errors.Is(err, ErrStopped) {
		t.Errorf("a stopping agent took a phase: %v", err)
	}
}
