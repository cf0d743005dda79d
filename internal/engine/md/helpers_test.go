package md

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/record"
)

// runPhase prepares, runs and cleans up one md phase with params p, as the
// controller does, and returns its result.
func runPhase(t testing.TB, p map[string]any, env engine.Env) (*engine.HostResult, error) {
	t.Helper()
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if env.Host == "" {
		env.Host = "h1"
	}
	if env.RunID == "" {
		env.RunID = "run1"
	}
	ph := engine.Phase{Name: "md", Engine: "md", Params: raw}
	var e engine.Engine = Engine{}
	ctx := context.Background()
	pr, err := e.Prepare(ctx, env, ph)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err := pr.Cleanup(ctx); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	}()
	return pr.Run(ctx, time.Now(), nil)
}

// op returns the statistics of the named operation, failing when absent.
func op(t testing.TB, res *engine.HostResult, name string) record.OpStats {
	t.Helper()
	for _, o := range res.Ops {
		if o.Op == name {
			return o
		}
	}
	t.Fatalf("no %q in result (have %v)", name, opNames(res))
	return record.OpStats{}
}

func opNames(res *engine.HostResult) []string {
	var out []string
	for _, o := range res.Ops {
		out = append(out, o.Op)
	}
	return out
}
