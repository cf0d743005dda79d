package cluster

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/engine/fio"
)

// slowRemoval is a fake prepared phase whose file (a real one, on the
// test's file system) is removed only when its removal is awaited: a
// background removal slower than everything that follows it, which no
// real removal can be made to be on demand.
type slowRemoval struct{ path string }

func (s slowRemoval) Run(context.Context, time.Time, engine.LiveFunc) (*engine.HostResult, error) {
	return &engine.HostResult{}, nil
}
func (s slowRemoval) Cleanup(context.Context) error              { return os.Remove(s.path) }
func (s slowRemoval) CleanupLeaving(context.Context, bool) error { return os.Remove(s.path) }
func (s slowRemoval) StartCleanup() (func(context.Context) error, bool) {
	return func(context.Context) error { return os.Remove(s.path) }, true
}

// Issue 21 item 3: host b's files of an earlier phase (24 MiB of a 32
// MiB file system that host a shares) are still being removed when a
// phase on host a alone needs 16 MiB there. Their space is free before
// the phase starts: the phase runs, once every host's removals ended (a
// awaited only its own, and refused). With the space still taken and
// nothing being removed, the same phase is refused, naming the host.
func TestSpaceOfAnotherHostsRemovalAwaited(t *testing.T) {
	t.Parallel()
	if _, err := fio.FindFio(""); err != nil {
		t.Skip(err)
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs (run the tests as root to cover a full shared file system)")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=32m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("mount tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", mnt).Run() })
	earlier := filepath.Join(mnt, "earlier")
	if err := os.WriteFile(earlier, make([]byte, 24<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := engine.Registry{"fio": fio.Engine{}}
	a := &LocalAgent{Host: "a", Engines: reg}
	b := &LocalAgent{Host: "b", Engines: reg}
	if !b.bg.start(slowRemoval{earlier}, "r1", "earlier", "b") {
		t.Fatal("the fake removal did not start")
	}
	ps, _ := json.Marshal(fio.Params{Dir: mnt, Job: fio.Job{Name: "w", Text: "[global]\nioengine=psync\nbs=1m\nsize=16m\ntime_based=1\nruntime=1\n[w]\nrw=write\n"}})
	p := engine.Phase{Name: "next", Engine: "fio", Params: ps}
	ctrl := &Controller{Agents: []Agent{a}, All: []Agent{a, b}, Engines: reg}
	out, err := ctrl.RunPhase(context.Background(), "r1", false, p)
	if err != nil {
		t.Fatalf("16 MiB on host a, with 24 MiB of 32 being removed on host b, was refused: %v", err)
	}
	if _, err := os.Stat(earlier); err == nil {
		t.Errorf("host b's removal did not end before the phase")
	}
	found := false
	for _, r := range out.Removals {
		found = found || r.Host == "b" && r.Phase == "earlier" && r.EndNs != 0
	}
	if !found {
		t.Errorf("host b's removal is not among the phase's awaited removals: %+v", out.Removals)
	}
	// Taken, and nothing being removed: refused before any host prepares.
	if err := os.WriteFile(earlier, make([]byte, 24<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ctrl.RunPhase(context.Background(), "r2", false, p)
	if err == nil || !strings.Contains(err.Error(), "lays out at least 16.0 MiB") || !strings.Contains(err.Error(), "host a") {
		t.Errorf("16 MiB with 8 MiB free: %v, want a refusal naming host a", err)
	}
	if ents, _ := os.ReadDir(filepath.Join(mnt, "storbench")); len(ents) != 0 {
		t.Errorf("DIR/storbench holds %v after the refusal", ents)
	}
}
