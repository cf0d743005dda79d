package md

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/storbench/storbench/internal/engine"
)

// A phase whose hosts share one tree works in the run's shared area. The
// first host's agent that cleans up on its own (told to stop, or without
// its controller) while the other hosts may still run the phase leaves
// that tree for the run-level cleanup: its Cleanup, which the controller
// asks for once every host's run ended, removes it, and CleanupSolo
// removing it too took the tree from under a host that began late.
func TestCleanupSoloLeavesTheSharedTree(t *testing.T) {
	dir := t.TempDir()
	raw, err := json.Marshal(map[string]any{"dir": dir, "items": 10, "branch": 1, "workers": 1, "files_only": true})
	if err != nil {
		t.Fatal(err)
	}
	tree := filepath.Join(engine.SharedArea(dir, "r1"), "md-m")
	prepare := func() engine.Prepared {
		pr, err := Engine{}.Prepare(context.Background(), engine.Env{Host: "h0", RunID: "r1", Hosts: 2, Rank: 0}, engine.Phase{Name: "m", Engine: "md", Params: raw})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(tree); err != nil {
			t.Fatalf("the shared tree after prepare: %v", err)
		}
		return pr
	}
	if err := prepare().(engine.Cleaner).CleanupSolo(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tree); err != nil {
		t.Errorf("the shared tree after the first host's cleanup on its own: %v", err)
	}
	if err := prepare().Cleanup(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tree); !os.IsNotExist(err) {
		t.Errorf("the shared tree after the first host's cleanup once every host ran: %v, want it gone", err)
	}
}
