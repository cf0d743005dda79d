package engine

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// leaseFiles lists the leases of run in dir/storbench.
func leaseFiles(t *testing.T, dir, run string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "storbench", leasePrefix+run+".*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A process holds one lease on a run in a directory while it has a
// workspace or a pin of the run there, named for it, and gives it up
// with the last: removed, kept or unpinned, DIR is as it was.
func TestLeaseHeldWhileTheRunHasSomethingThere(t *testing.T) {
	dir := t.TempDir()
	a, err := NewWorkspace(dir, "r", "h", "p1")
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewWorkspace(dir, "r", "h", "p2")
	if err != nil {
		t.Fatal(err)
	}
	ls := leaseFiles(t, dir, "r")
	if len(ls) != 1 {
		t.Fatalf("leases %v, want one for this process", ls)
	}
	got, _ := os.ReadFile(ls[0])
	if want := fmt.Sprintf("pid=%d ", os.Getpid()); !strings.Contains(string(got), want) {
		t.Errorf("lease says %q, want it to name this process (%s)", got, want)
	}
	if err := a.Remove(); err != nil {
		t.Fatal(err)
	}
	if len(leaseFiles(t, dir, "r")) != 1 {
		t.Error("the lease went with the first of two workspaces")
	}
	b.Keep()
	if len(leaseFiles(t, dir, "r")) != 0 {
		t.Error("the lease stayed after the last workspace was kept")
	}
	if err := os.RemoveAll(filepath.Join(dir, "storbench")); err != nil {
		t.Fatal(err)
	}
	if err := PinSharedArea(dir, "r"); err != nil {
		t.Fatal(err)
	}
	if len(leaseFiles(t, dir, "r")) != 1 {
		t.Error("no lease while the run's shared area is pinned")
	}
	if err := RemoveShared(dir, "r"); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("DIR holds %v after the pin was removed", ents)
	}
}

// deadHolder returns a holder line for a process that ran on this machine
// and has ended.
func deadHolder(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	start := processStart(cmd.Process.Pid)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if start == "" {
		t.Skip("no process start times here")
	}
	return fmt.Sprintf("machine=%s host=h pid=%d start=%s\n", machineKey(), cmd.Process.Pid, start)
}

// FindStale names a run whose every lease is a process's that has ended
// on this machine, with what it left; a run with a live process's lease,
// a lease written on another machine or one that cannot be read is not
// named, and not removed. RemoveStale removes the killed run's directory,
// marker and leases, DIR/storbench too when the run made it and nothing
// else is there, and nothing else.
func TestFindStale(t *testing.T) {
	dir := t.TempDir()
	top := filepath.Join(dir, "storbench")
	write := func(rel, s string) {
		t.Helper()
		p := filepath.Join(top, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dead := deadHolder(t)
	write("killed/h/p/file", "x")
	write("killed/shared/"+SharedPin, "")
	write(createdMarker+"killed", "")
	write(leasePrefix+"killed.1-aa", dead)
	write(leasePrefix+"killed.2-bb", dead)
	write(leasePrefix+"killed.6-ff"+leaseWriting, "machine=") // killed while writing it
	// A run with a dead and a live process: going on.
	write("half/h/p/file", "x")
	write(leasePrefix+"half.1-aa", dead)
	write(leasePrefix+"half.3-cc", holderLine())
	// Written on another machine: cannot tell.
	write("elsewhere/h/p/file", "x")
	write(leasePrefix+"elsewhere.4-dd", strings.Replace(dead, "machine="+machineKey(), "machine=another/pid:[1]", 1))
	// Unreadable: cannot tell.
	write("garbled/h/p/file", "x")
	write(leasePrefix+"garbled.5-ee", "not a lease")
	// No lease at all (a kept run, or one of an earlier storbench).
	write("kept/h/p/file", "x")
	write("other-run/h/p/file", "foreign")

	found := FindStale(dir, "current")
	if len(found) != 1 || found[0].RunID != "killed" {
		t.Fatalf("FindStale: %+v, want the killed run alone", found)
	}
	s := found[0]
	if s.Count == nil || *s.Count != 6 || !s.Marker || len(s.Leases) != 3 {
		t.Errorf("stale %+v, want 6 files and directories, the marker and three leases (one half written)", s)
	}
	if txt := s.Text(); !strings.Contains(txt, "run killed, killed (process") || !strings.Contains(txt, "6 files and directories in "+filepath.Join(top, "killed")) {
		t.Errorf("text %q", txt)
	}
	if got := FindStale(dir, "killed"); len(got) != 0 {
		t.Errorf("the current run named as stale: %+v", got)
	}
	if err := RemoveStale(s); err != nil {
		t.Fatal(err)
	}
	var left []string
	ents, _ := os.ReadDir(top)
	for _, e := range ents {
		left = append(left, e.Name())
	}
	want := "[" + leasePrefix + "elsewhere.4-dd " + leasePrefix + "garbled.5-ee " + leasePrefix + "half.1-aa " + leasePrefix + "half.3-cc elsewhere garbled half kept other-run]"
	if fmt.Sprint(left) != want {
		t.Errorf("DIR/storbench after RemoveStale: %v, want %s", left, want)
	}
	if b, err := os.ReadFile(filepath.Join(top, "other-run/h/p/file")); err != nil || string(b) != "foreign" {
		t.Errorf("another run's file: %q, %v", b, err)
	}
	// The killed run made DIR/storbench: alone there, it goes with it.
	dir2 := t.TempDir()
	top = filepath.Join(dir2, "storbench")
	write("killed/h/p/file", "x")
	write(createdMarker+"killed", "")
	write(leasePrefix+"killed.1-aa", dead)
	found = FindStale(dir2, "")
	if len(found) != 1 {
		t.Fatalf("FindStale: %+v", found)
	}
	if err := RemoveStale(found[0]); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir2); len(ents) != 0 {
		t.Errorf("DIR holds %v after the killed run's removal", ents)
	}
}
