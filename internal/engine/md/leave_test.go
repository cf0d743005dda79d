package md

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/storbench/storbench/internal/engine"
)

// A phase whose hosts share one tree works in the run's shared area. A
// host whose agent leaves the phase on its own (told to stop) while
// others still run it leaves that tree, on the first host too, for the
// run-level cleanup: removing it, as the first host's Cleanup does once
// every host's run ended, took it from under a host that began late.
// The phase's last host to leave removes it whatever its rank: no other
// is left to, and with every agent stopped (scancel) no run-level
// cleanup comes either.
func TestCleanupLeavingKeepsTheSharedTreeForOthers(t *testing.T) {
	dir := t.TempDir()
	raw, err := json.Marshal(map[string]any{"dir": dir, "items": 10, "branch": 1, "workers": 1, "files_only": true})
	if err != nil {
		t.Fatal(err)
	}
	tree := filepath.Join(engine.SharedArea(dir, "r1"), "md-m")
	prepare := func(rank int) engine.Cleaner {
		t.Helper()
		pr, err := Engine{}.Prepare(context.Background(), engine.Env{Host: "h", RunID: "r1", Hosts: 2, Rank: rank}, engine.Phase{Name: "m", Engine: "md", Params: raw})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(tree); err != nil {
			t.Fatalf("the shared tree after rank %d's prepare: %v", rank, err)
		}
		return pr.(engine.Cleaner)
	}
	first, second := prepare(0), prepare(1)
	if err := first.CleanupLeaving(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tree); err != nil {
		t.Errorf("the shared tree after the first host left while others run: %v", err)
	}
	if err := second.CleanupLeaving(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tree); !os.IsNotExist(err) {
		t.Errorf("the shared tree after the second host left last: %v, want it gone", err)
	}
}
