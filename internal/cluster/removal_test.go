package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
)

// slowCleanEngine is a fake: tickEngine whose phases' cleanup takes
// slowClean in the background, as deleting many files does (the real
// thing, with fio, is in removal_procs_test.go).
type slowCleanEngine struct{ tickEngine }

const slowClean = 600 * time.Millisecond

func init() { testEngines["sbtest-slowclean"] = slowCleanEngine{} }

func (e slowCleanEngine) Prepare(ctx context.Context, env engine.Env, p engine.Phase) (engine.Prepared, error) {
	pr, err := e.tickEngine.Prepare(ctx, env, p)
	if err != nil {
		return nil, err
	}
	return slowCleanPrepared{pr}, nil
}

type slowCleanPrepared struct{ engine.Prepared }

func (s slowCleanPrepared) CleanupLeaving(ctx context.Context, _ bool) error { return s.Cleanup(ctx) }

func (s slowCleanPrepared) StartCleanup() (func(ctx context.Context) error, bool) {
	done := time.After(slowClean)
	return func(ctx context.Context) error {
		select {
		case <-done:
			return s.Prepared.Cleanup(ctx)
		case <-ctx.Done():
			return ctx.Err()
		}
	}, true
}

// The removal of a phase's files on agents, one with a clock 5 s off and
// one on a host the next phase does not use, goes on after the phase and
// is over before the next phase's start; the controller learns when it
// ran, in its own clock.
func TestRemovalAwaitedBeforeNextStart(t *testing.T) {
	t.Parallel()
	skewed := startAgent(t, "s", func(s *Server) { s.ClockSkew = 5 * time.Second })
	plain := startAgent(t, "p", nil)
	a, b := remoteFor(skewed, "skewed"), remoteFor(plain, "plain")
	c := newController(a, b)
	c.MaxClockOffset = 10 * time.Second
	if _, err := c.Connect(context.Background()); err != nil {
		t.Fatal(err)
	}
	p := tickPhaseOf(t, 300, 100, 5)
	p.Engine = "sbtest-slowclean"
	out1, err := c.RunPhase(context.Background(), "r", false, p)
	if err != nil {
		t.Fatal(err)
	}
	if out1.Cleanup > slowClean/2 {
		t.Errorf("the phase waited %s for its cleanup: the removal did not go on in the background", out1.Cleanup)
	}
	// The next phase runs on the skewed agent alone; the other's removal
	// is awaited all the same.
	c.All, c.Agents = []Agent{a, b}, []Agent{a}
	out2, err := c.RunPhase(context.Background(), "r", false, tickPhaseOf(t, 300, 100, 5))
	if err != nil {
		t.Fatal(err)
	}
	if len(out2.Removals) != 2 {
		t.Fatalf("removals %+v, want one per host", out2.Removals)
	}
	for _, r := range out2.Removals {
		start, end := time.Unix(0, r.StartNs), time.Unix(0, r.EndNs)
		if start.Before(out1.End.Add(-time.Second)) || start.After(out1.End.Add(time.Second)) {
			t.Errorf("%s: removal started at %s, phase 1 ended at %s: not in the controller's clock", r.Host, start, out1.End)
		}
		if d := end.Sub(start); d < slowClean-50*time.Millisecond {
			t.Errorf("%s: removal took %s, want at least %s", r.Host, d, slowClean)
		}
		if !end.Before(out2.Start) {
			t.Errorf("%s: removal ended at %s, after phase 2 started at %s", r.Host, end, out2.Start)
		}
		if r.Phase != "tick" || r.RunID != "r" || len(r.Leftovers) != 0 {
			t.Errorf("record %+v", r)
		}
	}
}
