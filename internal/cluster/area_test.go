package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/storbench/storbench/internal/engine"
)

// otherMount is a fake standing in for a host that has another file system
// mounted at the run's directory (a local disk where the shared one should
// be): every path under dir it is given lands under its own directory
// instead. The real thing - agents in mount namespaces, each with its own
// tmpfs at one path - is TestClusterSharedAreaProbe (root).
type otherMount struct {
	Agent
	dir, own string
}

func (m otherMount) Prepare(ctx context.Context, req Request) error {
	from, _ := json.Marshal(m.dir)
	to, _ := json.Marshal(m.own)
	req.Phase.Params = bytes.ReplaceAll(req.Phase.Params, from, to)
	return m.Agent.Prepare(ctx, req)
}

func emptyDir(t *testing.T, dir string) {
	t.Helper()
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 0 {
		t.Errorf("%s holds %v (%v) after the probe", dir, ents, err)
	}
}

// Hosts on one file system pass the probe, in-process and over the
// protocol alike. The probe leaves the run's shared area in DIR, holding
// only its pin, for the phases: no phase's cleanup removes it (on a shared
// file system with client caches, hosts that remove and re-create it
// between the probe and a phase fail with ENOENT or ESTALE, issue 23);
// the run-level cleanup removes it, and then DIR holds nothing.
func TestProveShared(t *testing.T) {
	dir := t.TempDir()
	a1, a2 := startAgent(t, "h1", nil), startAgent(t, "h2", nil)
	c := newController(&LocalAgent{Host: "h0", Version: "test", Engines: testEngines}, remoteFor(a1, "h1"), remoteFor(a2, "h2"))
	if err := c.ProveShared(t.Context(), "run1", dir, c.Agents); err != nil {
		t.Fatalf("three hosts on one directory: %v", err)
	}
	area := engine.SharedArea(dir, "run1")
	if ents, err := os.ReadDir(area); err != nil || len(ents) != 1 || ents[0].Name() != engine.SharedPin {
		t.Fatalf("after the probe the shared area holds %v (%v), want only its pin", ents, err)
	}
	// A phase's shared entry, made and removed as a phase does, leaves
	// the area in place for the next phase.
	w, err := engine.SharedWorkspace(dir, "run1", "md-tree")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(area, engine.SharedPin)); err != nil {
		t.Fatalf("a phase's cleanup removed the shared area: %v", err)
	}
	if left := c.RemoveShared(t.Context(), "run1", dir); len(left) != 0 {
		t.Fatalf("left %v", left)
	}
	emptyDir(t, dir)
}

// Hosts that see another file system at the same path are named, against
// the hosts that agree; each host's own file system is left as it was.
func TestProveSharedNamesHostsOnAnotherFileSystem(t *testing.T) {
	for _, tc := range []struct {
		name    string
		private []bool // by rank: this host has a file system of its own at dir
		want    string
	}{
		{"one host on a local disk", []bool{false, false, true}, "h2 sees another file system at DIR than h0, h1"},
		{"the first host on a local disk", []bool{true, false, false}, "h0 sees another file system at DIR than h1, h2"},
		{"every host on its own", []bool{true, true, true}, "h1, h2 see another file system at DIR than h0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var agents []Agent
			var owns []string
			for i, private := range tc.private {
				var a Agent = &LocalAgent{Host: "h" + string(rune('0'+i)), Version: "test", Engines: testEngines}
				if private {
					own := t.TempDir()
					owns = append(owns, own)
					a = otherMount{Agent: a, dir: dir, own: own}
				}
				agents = append(agents, a)
			}
			c := newController(agents...)
			err := c.ProveShared(t.Context(), "run1", dir, agents)
			if err == nil {
				t.Fatal("hosts on different file systems passed the probe")
			}
			if msg := strings.ReplaceAll(err.Error(), dir, "DIR"); !strings.Contains(msg, tc.want) || !strings.Contains(msg, "mount the shared file system there on every host") {
				t.Errorf("got %q, want it to say %q and what to do", msg, tc.want)
			}
			emptyDir(t, dir)
			for _, o := range owns {
				emptyDir(t, o)
			}
		})
	}
}

// The verdict from what each host read back, by rank.
func TestSharedVerdict(t *testing.T) {
	names := []string{"a", "b", "c", "d"}
	for _, tc := range []struct {
		seen []string
		want string // "" passes
	}{
		{[]string{"0,1,2,3", "0,1,2,3", "0,1,2,3", "0,1,2,3"}, ""},
		{[]string{"0,1,2", "0,1,2", "0,1,2", "3"}, "d sees another file system at /x than a, b, c"},
		// Two against two: the first host's group is the reference.
		{[]string{"0,1", "0,1", "2,3", "2,3"}, "c, d see another file system at /x than a, b"},
		{[]string{"1,2,3", "1,2,3", "1,2,3", "1,2,3"}, "a, b, c, d do not read back each other's probe files"},
	} {
		err := sharedVerdict("/x", "r", names, tc.seen)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v", tc.seen, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%v: got %v, want %q", tc.seen, err, tc.want)
		}
	}
}

// The run-level cleanup removes the shared area on the first host still
// there, with everything phases left in it, and the run's empty levels.
func TestRemoveSharedOnOneAgent(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"fio", "md-tree"} {
		w, err := engine.SharedWorkspace(dir, "run1", name)
		if err != nil {
			t.Fatal(err)
		}
		_ = os.WriteFile(filepath.Join(w.Path, "f"), []byte("x"), 0o644)
		w.Keep() // the run-level cleanup removes it, as fio's
	}
	c := newController(&LocalAgent{Host: "h0", Version: "test", Engines: testEngines}, &LocalAgent{Host: "h1", Version: "test", Engines: testEngines})
	c.markLost("h0", ErrLost)
	if left := c.RemoveShared(t.Context(), "run1", dir); len(left) != 0 {
		t.Fatalf("left %v", left)
	}
	emptyDir(t, dir)
	c.markLost("h1", ErrLost)
	left := c.RemoveShared(t.Context(), "run1", dir)
	if len(left) != 1 || !strings.Contains(left[0].Text(), "every host was lost") {
		t.Errorf("no agent left: %v", left)
	}
}

// staleMount is a fake standing in for a host whose shared file system
// fails while the probe looks (ESTALE from GlusterFS or NFS): no real
// file system here fails on demand.
type staleMount struct{ Agent }

func (m staleMount) Prepare(ctx context.Context, req Request) error {
	if req.Phase.Name == "shared-area-probe" {
		return &os.PathError{Op: "mkdir", Path: "/mnt/x/storbench", Err: syscall.ESTALE}
	}
	return m.Agent.Prepare(ctx, req)
}

// A probe that a host's file system error keeps from a verdict says so
// (the host, the error), and is no verdict that the hosts do not share
// (NotSharedError: the run exits 2 on that, 1 on this); the shared area
// the probe made is removed.
func TestProveSharedErrorIsNoVerdict(t *testing.T) {
	dir := t.TempDir()
	agents := []Agent{
		&LocalAgent{Host: "h0", Version: "test", Engines: testEngines},
		staleMount{&LocalAgent{Host: "h1", Version: "test", Engines: testEngines}},
	}
	c := newController(agents...)
	err := c.ProveShared(t.Context(), "run1", dir, agents)
	var ns *NotSharedError
	if err == nil || errors.As(err, &ns) || !strings.Contains(err.Error(), "h1") || !strings.Contains(err.Error(), "stale file handle") {
		t.Fatalf("got %v (a verdict: %v), want h1's stale file handle, and no verdict", err, errors.As(err, &ns))
	}
	emptyDir(t, dir)
	// The verdict itself is a NotSharedError.
	agents[1] = otherMount{Agent: &LocalAgent{Host: "h1", Version: "test", Engines: testEngines}, dir: dir, own: t.TempDir()}
	if err := c.ProveShared(t.Context(), "run2", dir, agents); !errors.As(err, &ns) {
		t.Fatalf("another file system: %v, want a NotSharedError", err)
	}
	emptyDir(t, dir)
}
