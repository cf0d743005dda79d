package cluster

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// With --drop-caches, an agent syncs and drops the page cache after
// preparing a phase (preparation fills it) and before running it; an agent
// not running as root is refused before anything runs.
func TestDropCaches(t *testing.T) {
	knob := filepath.Join(t.TempDir(), "drop_caches")
	old := dropCachesPath
	dropCachesPath = knob
	defer func() { dropCachesPath = old }()

	a := &LocalAgent{Host: "h", Version: "test", Engines: testEngines}
	err := a.Prepare(context.Background(), Request{RunID: "r", Phase: tickPhaseOf(t, 100, 50, 1), DropCaches: true})
	if os.Geteuid() != 0 {
		if err == nil || !strings.Contains(err.Error(), "root") {
			t.Fatalf("not root: %v", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	defer a.Cleanup(context.Background())
	b, err := os.ReadFile(knob)
	if err != nil || string(b) != "3\n" {
		t.Fatalf("drop_caches got %q (%v)", b, err)
	}
}

type notRoot struct{ Agent }

func (n notRoot) Info(ctx context.Context) (Info, error) {
	in, err := n.Agent.Info(ctx)
	in.Root = false
	return in, err
}

func TestDropCachesNeedsRoot(t *testing.T) {
	c := &Controller{Agents: []Agent{notRoot{&LocalAgent{Host: "h", Version: "test", Engines: testEngines}}}, DropCaches: true, Engines: testEngines}
	_, err := c.Connect(context.Background())
	if err == nil || !strings.Contains(err.Error(), "h: --drop-caches needs the agent to run as root") {
		t.Fatalf("%v", err)
	}
}
