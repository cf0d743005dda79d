package enginetest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/testutil"
)

// Linker is a Target whose namespace a symbolic link can lead out of: a
// directory tree.
type Linker interface {
	// LinkOut makes level (a path below the target's top, "storbench" or
	// "storbench/<run id>/...") a symbolic link to a fresh directory
	// outside the target, and returns that directory and a function that
	// puts things back as they were.
	LinkOut(t *testing.T, level string) (outside string, undo func())
}

// refuseSymlinks: a level of the engine's namespace that is a symbolic
// link is refused by Prepare as bad input (engine.ErrUnsupported: exit 2),
// and nothing is made where the link leads, with Keep or without, locally
// and, with ThroughAgent, by a real agent process. Every engine refuses
// alike: one rule, in engine's workspace.
func (s Suite) refuseSymlinks(t *testing.T) {
	l, ok := s.Target.(Linker)
	if !ok {
		t.Skip("the target has no directory a symbolic link could lead out of")
	}
	for _, w := range s.ways(t) {
		for _, keep := range []bool{false, true} {
			id := runID(t)
			for _, level := range []string{"storbench", "storbench/" + id, "storbench/" + id + "/" + s.Env.Host} {
				name := w.name + "/" + level
				if keep {
					name += "/keep"
				}
				t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
					s.refuseLink(t, l, w.eng, id, level, keep)
				})
			}
		}
	}
}

func (s Suite) refuseLink(t *testing.T, l Linker, eng engine.Engine, id, level string, keep bool) {
	outside, undo := l.LinkOut(t, level)
	defer undo()
	env := s.Env
	env.RunID, env.Keep = id, keep
	pr, err := eng.Prepare(context.Background(), env, s.Phase(t, "conformance", false))
	if err == nil {
		t.Errorf("Prepare worked through the symbolic link %s", level)
		if _, rerr := pr.Run(context.Background(), time.Now(), nil); rerr != nil {
			t.Logf("Run: %v", rerr)
		}
		_ = pr.Cleanup(context.Background())
	} else {
		if !errors.Is(err, engine.ErrUnsupported) {
			t.Errorf("Prepare's refusal %q is not marked as bad input (engine.ErrUnsupported: exit 2)", err)
		}
		if !strings.Contains(err.Error(), "symbolic link") || strings.Contains(err.Error(), "\n") {
			t.Errorf("Prepare's refusal %q is not one line saying the symbolic link is why", err)
		}
	}
	var made []string
	_ = filepath.WalkDir(outside, func(p string, _ os.DirEntry, err error) error {
		if err == nil && p != outside {
			made = append(made, p)
		}
		return nil
	})
	if len(made) > 0 {
		t.Errorf("made where the link %s leads: %v", level, made)
	}
}

// LinkOut makes Dir/level a symbolic link to a new directory outside Dir.
// What was at Dir/level is set aside and put back by undo.
func (f Files) LinkOut(t *testing.T, level string) (string, func()) {
	t.Helper()
	outside := t.TempDir()
	p := filepath.Join(f.Dir, level)
	aside := p + ".aside"
	moved := os.Rename(p, aside) == nil
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, p); err != nil {
		t.Fatal(err)
	}
	return outside, func() {
		if err := os.Remove(p); err != nil {
			t.Error(err)
		}
		if moved {
			if err := os.Rename(aside, p); err != nil {
				t.Error(err)
			}
		}
		// Levels made for the link (storbench/<run id>) go again.
		for d := filepath.Dir(p); d != f.Dir && len(d) > len(f.Dir); d = filepath.Dir(d) {
			_ = os.Remove(d)
		}
	}
}

// way is how a test reaches the engine: in this process, or in an agent.
type way struct {
	name string
	eng  engine.Engine
}

// ways are the engine in this process and, with ThroughAgent, in a real
// agent process started for the test.
func (s Suite) ways(t *testing.T) []way {
	ways := []way{{"local", s.Engine}}
	if s.ThroughAgent {
		ways = append(ways, way{"agent", agentEngine{a: agentProcess(t, s.Env.Host)}})
	}
	return ways
}

// agentEngine runs phases through an agent, as a controller does: the
// engine under test is the one in the agent's process.
type agentEngine struct {
	engine.Base
	a *cluster.RemoteAgent
}

func (e agentEngine) Prepare(ctx context.Context, env engine.Env, p engine.Phase) (engine.Prepared, error) {
	err := e.a.Prepare(ctx, cluster.Request{RunID: env.RunID, Keep: env.Keep, Phase: p, Host: env.Host})
	if err != nil {
		return nil, err
	}
	return agentPhase{e.a, env.RunID}, nil
}

type agentPhase struct {
	a     *cluster.RemoteAgent
	runID string
}

func (p agentPhase) Run(ctx context.Context, startAt time.Time, live engine.LiveFunc) (*engine.HostResult, error) {
	return p.a.Run(ctx, startAt, live)
}

// Cleanup cleans up on the agent and, as a controller does before the
// next phase, awaits the removal the agent may do in the background: what
// that left comes back as Cleanup's leftovers.
func (p agentPhase) Cleanup(ctx context.Context) error {
	if err := p.a.Cleanup(ctx); err != nil {
		return err
	}
	recs, err := p.a.Settle(ctx, p.runID)
	if err != nil {
		return err
	}
	var left []engine.Leftover
	for _, r := range recs {
		left = append(left, r.Leftovers...)
	}
	if len(left) > 0 {
		return &engine.LeftoverError{Items: left}
	}
	return nil
}

// agentProcess starts `storbench agent` on loopback with a token, for the
// life of the test, and returns the controller's handle on it named host.
func agentProcess(t *testing.T, host string) *cluster.RemoteAgent {
	t.Helper()
	const token = "enginetest-token-0123456789"
	addr := testutil.AgentProcess(t, testutil.StorbenchBin(t), token)
	return &cluster.RemoteAgent{Addr: addr, Host: host, Token: token, Controller: "enginetest"}
}
