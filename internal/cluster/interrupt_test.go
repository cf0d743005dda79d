package cluster

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/record"
)

// fakeStopEngine is a fake engine: it runs until its context ends and
// returns one operation with engine.Interrupted, as the real engines do
// when they are stopped.
type fakeStopEngine struct{ engine.Base }

type fakeStopPhase struct{ host string }

func (fakeStopEngine) Prepare(_ context.Context, env engine.Env, _ engine.Phase) (engine.Prepared, error) {
	return &fakeStopPhase{host: env.Host}, nil
}

func (f *fakeStopPhase) Run(ctx context.Context, _ time.Time, _ engine.LiveFunc) (*engine.HostResult, error) {
	<-ctx.Done()
	return &engine.HostResult{Host: f.host, Ops: []record.OpStats{{Op: "op", Ops: 1}}}, engine.Interrupted(ctx.Err())
}

func (f *fakeStopPhase) Cleanup(context.Context) error { return nil }

// A phase cut short by Ctrl-C keeps what it measured and says
// "interrupted" on its host; one ended by the controller's own stop
// (autoterm) is a normal end with no error. The engine says only that its
// context ended; the agent tells the two apart.
func TestInterruptedOrStopped(t *testing.T) {
	run := func(t *testing.T, stop func(a *LocalAgent, cancel context.CancelFunc)) (*engine.HostResult, error) {
		t.Helper()
		a := &LocalAgent{Host: "h", Version: "test", Engines: testEngines}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		if err := a.Prepare(ctx, Request{RunID: "r", Phase: engine.Phase{Name: "p", Engine: "sbtest-stop"}}); err != nil {
			t.Fatal(err)
		}
		defer a.Cleanup(context.Background())
		go func() {
			time.Sleep(50 * time.Millisecond)
			stop(a, cancel)
		}()
		return a.Run(ctx, time.Now(), nil)
	}
	t.Run("Ctrl-C", func(t *testing.T) {
		res, err := run(t, func(_ *LocalAgent, cancel context.CancelFunc) { cancel() })
		if !errors.Is(err, engine.ErrInterrupted) || !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want interrupted and canceled", err)
		}
		if res == nil || res.Err != "interrupted" || len(res.Ops) != 1 {
			t.Errorf("result %+v, want its operation kept and error \"interrupted\"", res)
		}
	})
	t.Run("stop", func(t *testing.T) {
		res, err := run(t, func(a *LocalAgent, _ context.CancelFunc) { a.Stop() })
		if err != nil {
			t.Errorf("error %v, want none", err)
		}
		if res == nil || res.Err != "" || len(res.Ops) != 1 {
			t.Errorf("result %+v, want its operation kept and no error", res)
		}
	})
}
