package engine

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Two hosts of one run on a shared file system: whichever finishes last,
// nothing of the run is left - not even an empty DIR/storbench, which the
// run created - and what was in DIR before stays.
func TestWorkspacesOnSharedDirLeaveNothing(t *testing.T) {
	for _, order := range [][2]int{{0, 1}, {1, 0}} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "keep"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		a, err := NewWorkspace(dir, "run1", "hostA", "p")
		if err != nil {
			t.Fatal(err)
		}
		b, err := NewWorkspace(dir, "run1", "hostB", "p")
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(a.Path, "f"), nil, 0o644)
		os.WriteFile(filepath.Join(b.Path, "f"), nil, 0o644)
		ws := []*Workspace{a, b}
		ws[order[0]].Remove()
		ws[order[1]].Remove()
		var names []string
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			names = append(names, e.Name())
		}
		// DIR/storbench was made by one host; whichever finishes last
		// removes it, empty, since the run made it.
		want := "[keep]"
		if got := fmt.Sprint(names); got != want {
			t.Errorf("order %v: DIR holds %s, want %s", order, got, want)
		}
		if _, err := os.Stat(filepath.Join(dir, "storbench", "run1")); !os.IsNotExist(err) {
			t.Errorf("order %v: the run's folder is left behind", order)
		}
	}
}

// A DIR/storbench that was there before the run stays.
func TestWorkspaceKeepsPreexistingParent(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "storbench"), 0o755)
	w, err := NewWorkspace(dir, "r", "h", "p")
	if err != nil {
		t.Fatal(err)
	}
	w.Remove()
	if _, err := os.Stat(filepath.Join(dir, "storbench")); err != nil {
		t.Errorf("pre-existing DIR/storbench removed: %v", err)
	}
	if _, err := NewWorkspace(filepath.Join(dir, "missing"), "r", "h", "p"); err == nil {
		t.Error("a missing DIR was accepted")
	}
}

// Three hosts of one run sharing DIR, finishing in every order: DIR ends as
// it was. A DIR/storbench made by an earlier run (with that run's marker)
// is not this run's to remove.
func TestWorkspaceThreeHostsLeaveNoEmptyStorbenchDir(t *testing.T) {
	orders := [][3]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
	for _, order := range orders {
		dir := t.TempDir()
		var ws []*Workspace
		for _, h := range []string{"a", "b", "c"} {
			w, err := NewWorkspace(dir, "run3", h, "p")
			if err != nil {
				t.Fatal(err)
			}
			ws = append(ws, w)
		}
		for _, i := range order {
			if err := ws[i].Remove(); err != nil {
				t.Fatal(err)
			}
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("order %v: DIR holds %v after the run", order, ents)
		}
	}
	dir := t.TempDir()
	old, _ := NewWorkspace(dir, "old", "h", "p")
	os.WriteFile(filepath.Join(old.Path, "kept"), nil, 0o644) // a --keep run
	w, _ := NewWorkspace(dir, "new", "h", "p")
	w.Remove()
	if _, err := os.Stat(filepath.Join(old.Path, "kept")); err != nil {
		t.Errorf("another run's kept file: %v", err)
	}
}

// What cleanup cannot remove comes back typed, with its place and count.
func TestWorkspaceRemoveReportsLeftovers(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: an immutable file (chattr +i) is what root cannot remove")
	}
	dir := t.TempDir()
	w, err := NewWorkspace(dir, "r", "h", "p")
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(w.Path, "stuck")
	os.WriteFile(f, nil, 0o644)
	os.WriteFile(filepath.Join(w.Path, "gone"), nil, 0o644)
	if out, err := exec.Command("chattr", "+i", f).CombinedOutput(); err != nil {
		t.Skipf("chattr +i: %v %s", err, out)
	}
	defer exec.Command("chattr", "-i", f).Run()
	err = w.Remove()
	var le *LeftoverError
	if !errors.As(err, &le) || len(le.Items) != 1 {
		t.Fatalf("got %v, want a LeftoverError", err)
	}
	l := le.Items[0]
	if l.Where != w.Path || l.Count == nil || *l.Count != 2 || l.What != "files and directories" {
		t.Errorf("leftover %+v, want 2 entries (the directory and the file) in %s", l, w.Path)
	}
	if !strings.Contains(l.Text(), "2 files and directories in "+w.Path) {
		t.Errorf("text %q", l.Text())
	}
}

// twoHostsShare is two hosts of run r1 joining the shared directory
// "tree" in dir.
func twoHostsShare(t *testing.T, dir string) (a, b *Workspace) {
	t.Helper()
	a, err := SharedWorkspace(dir, "r1", "tree")
	if err != nil {
		t.Fatal(err)
	}
	if b, err = SharedWorkspace(dir, "r1", "tree"); err != nil {
		t.Fatalf("second host: %v", err)
	}
	return a, b
}

// The hosts of a run join one shared directory whichever comes first, and
// the host that removes it leaves DIR as it found it.
func TestSharedWorkspace(t *testing.T) {
	dir := t.TempDir()
	a, b := twoHostsShare(t, dir)
	want := filepath.Join(dir, "storbench", "r1", SharedName, "tree")
	if a.Path != want || b.Path != want {
		t.Fatalf("paths %s and %s, want %s", a.Path, b.Path, want)
	}
	if err := os.WriteFile(filepath.Join(a.Path, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(b.Path, "f")); err != nil {
		t.Errorf("the other host does not see the file: %v", err)
	}
	if _, err := SharedWorkspace(dir, "r1", ".."); err == nil {
		t.Error("a name leaving the shared directory was accepted")
	}
	a.Keep() // the host that does not remove it (engine.Plan.SharedDir)
	if err := b.Remove(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("DIR holds %v after the shared directory was removed", ents)
	}
}

// The host that removes a shared directory may finish before one that
// keeps it (md's rank 0 removes its shared tree, the others keep it; on
// Ctrl-C they end in any order, after the run-level cleanup): the last
// to let go of the run, whichever way, takes DIR/storbench, which the
// run made, when it holds nothing else. A kept workspace that still has
// its files leaves it. (TestMPIExecLauncher/Ctrl-C once found
// DIR/storbench holding only the run's marker.)
func TestSharedWorkspaceKeptAfterItsRemoval(t *testing.T) {
	dir := t.TempDir()
	a, b := twoHostsShare(t, dir)
	if err := a.Remove(); err != nil {
		t.Fatal(err)
	}
	b.Keep()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("DIR holds %v after one host removed the shared directory and the other kept it", dirNames(ents))
	}
	kept, err := NewWorkspace(dir, "r2", "h", "p")
	if err != nil {
		t.Fatal(err)
	}
	kept.Keep()
	if _, err := os.Stat(kept.Path); err != nil {
		t.Errorf("a kept workspace's directory went: %v", err)
	}
}

// dirNames are the names of ents (a DirEntry prints its type: "- name").
func dirNames(ents []os.DirEntry) []string {
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// No host works in a directory named like the run's shared area: its
// files would mix with every host's shared work (cluster.HostNames renames
// such a host; this is the last guard).
func TestWorkspaceRefusesHostNamedShared(t *testing.T) {
	dir := t.TempDir()
	for _, h := range []string{"shared", "Shared", "SHARED"} {
		if _, err := NewWorkspace(dir, "r", h, "p"); err == nil || !strings.Contains(err.Error(), "reserved") {
			t.Errorf("host %q: %v, want a refusal saying the name is reserved", h, err)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("DIR holds %v after the refusals", ents)
	}
}

// Hosts that each put one file in a shared directory and leave it: the
// last one out takes the directory and the run's levels with it, and a
// host that leaves first removes nothing another host still has there.
func TestSharedWorkspaceLeave(t *testing.T) {
	dir := t.TempDir()
	var ws []*Workspace
	for _, h := range []string{"a", "b"} {
		w, err := SharedWorkspace(dir, "r", "probe")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(w.Path, h), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	os.Remove(filepath.Join(ws[0].Path, "a"))
	if err := ws[0].Leave(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(ws[1].Path, "b")); err != nil {
		t.Fatalf("the first host out removed the other's file: %v", err)
	}
	os.Remove(filepath.Join(ws[1].Path, "b"))
	if err := ws[1].Leave(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("DIR holds %v after both hosts left", ents)
	}
}

// The run-level cleanup removes the run's shared area with whatever is in
// it, once, then the run's levels that are empty; entries of one engine go
// on their own and leave another's (md's trees, say) in place.
func TestRemoveShared(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "keep"), nil, 0o644)
	for _, name := range []string{"fio", "fio-h1", "md-tree"} {
		w, err := SharedWorkspace(dir, "r", name)
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(w.Path, "sub"), 0o755)
		os.WriteFile(filepath.Join(w.Path, "sub", "f"), []byte("x"), 0o644)
		w.Keep() // removed by entries, as fio's are
	}
	host, err := NewWorkspace(dir, "r", "h1", "job")
	if err != nil {
		t.Fatal(err)
	}
	isFio := func(n string) bool { return n == "fio" || strings.HasPrefix(n, "fio-") }
	if err := RemoveSharedEntries(dir, "r", isFio); err != nil {
		t.Fatal(err)
	}
	shared := filepath.Join(dir, "storbench", "r", SharedName)
	if ents, _ := os.ReadDir(shared); len(ents) != 1 || ents[0].Name() != "md-tree" {
		t.Fatalf("shared area after removing fio's entries: %v, want md-tree alone", ents)
	}
	if err := host.Remove(); err != nil {
		t.Fatal(err)
	}
	if err := RemoveShared(dir, "r"); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 || ents[0].Name() != "keep" {
		t.Errorf("DIR holds %v after the run-level cleanup, want keep alone", ents)
	}
	// Nothing there (a later phase removed it already): nothing to do.
	if err := RemoveShared(dir, "r"); err != nil {
		t.Errorf("second removal: %v", err)
	}
}

// A level that cannot be a directory is refused before any level is made:
// before, DIR/storbench/<run>/<host> and the run's marker stayed behind
// when the phase's name was refused (issue 21).
func TestWorkspaceBadNameLeavesNothing(t *testing.T) {
	for _, name := range []string{"../../escape", strings.Repeat("a", 300), ".."} {
		dir := t.TempDir()
		if _, err := NewWorkspace(dir, "run1", "host1", name); err == nil {
			t.Errorf("%.20q accepted", name)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("%.20q: left behind %v", name, ents)
		}
	}
}

// A shared directory is made by the phase's first host only: another host
// waits until it sees it, makes nothing meanwhile, then joins it (two
// clients of GlusterFS creating one directory at once left it answering
// EIO, issue 23).
func TestSharedWorkspaceOfWaitsForTheFirstHost(t *testing.T) {
	dir := t.TempDir()
	joined := make(chan *Workspace, 1)
	go func() {
		w, err := SharedWorkspaceOf(dir, "run1", "md-tree", 1)
		if err != nil {
			t.Error(err)
		}
		joined <- w
	}()
	time.Sleep(300 * time.Millisecond)
	select {
	case <-joined:
		t.Fatal("rank 1 went ahead before the first host made the directory")
	default:
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("rank 1 made %v while waiting", ents)
	}
	first, err := SharedWorkspaceOf(dir, "run1", "md-tree", 0)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case w := <-joined:
		if w == nil || w.Path != first.Path {
			t.Fatalf("rank 1 joined %v, the first host made %s", w, first.Path)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("rank 1 did not join within 10 s of the directory appearing")
	}
}

// removeAll removes a tree whose files it takes several at once: nested
// directories, one of more entries than a read takes (1,024), symbolic
// links to a directory and a file outside it, which it removes as links
// and never follows. A tree that is itself a link is not removed: it is
// not the directory storbench made.
func TestRemoveAllTreeAndLinks(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	keep := filepath.Join(outside, "keep")
	if err := os.WriteFile(keep, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tree := filepath.Join(root, "tree")
	for _, d := range []string{"a/b/c", "wide", "empty/e"} {
		if err := os.MkdirAll(filepath.Join(tree, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 1500 {
		if err := os.WriteFile(filepath.Join(tree, "wide", fmt.Sprint(i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"top", "a/x", "a/b/y", "a/b/c/z"} {
		if err := os.WriteFile(filepath.Join(tree, f), []byte("data"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(tree, "a", "dirlink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(keep, filepath.Join(tree, "a", "b", "filelink")); err != nil {
		t.Fatal(err)
	}
	if l := levelsOf(root, "tree").removeAll(notMoved); l != nil {
		t.Fatalf("leftover: %+v", *l)
	}
	if _, err := os.Lstat(tree); !os.IsNotExist(err) {
		t.Errorf("the tree is still there: %v", err)
	}
	if b, err := os.ReadFile(keep); err != nil || string(b) != "x" {
		t.Errorf("a file outside, behind a link, was touched: %q, %v", b, err)
	}
	// A link given as the tree stays, reported.
	link := filepath.Join(root, "link")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	if l := levelsOf(root, "link").removeAll(notMoved); l == nil || !strings.Contains(l.Reason, "symbolic link") {
		t.Fatalf("a link given as the tree: leftover %+v, want one saying it is a link", l)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("removing a link to a directory removed what it points to: %v", err)
	}
}

// Hosts that share a file system leave a shared workspace at once (the
// shared-area probe's hosts end together): each removes the levels it
// finds empty, and one finding a level another just removed has nothing
// to say. A host that found its level, then its parent gone (removed by
// another host after the level), failed with "open .../shared: no such
// file or directory" (TestProveSharedNamesHostsOnAnotherFileSystem,
// once under load).
func TestHostsLeaveASharedWorkspaceTogether(t *testing.T) {
	dir := t.TempDir()
	for round := range 300 {
		run := fmt.Sprintf("r%d", round)
		const hosts = 4
		ws := make([]*Workspace, hosts)
		for h := range ws {
			w, err := SharedWorkspace(dir, run, "probe")
			if err != nil {
				t.Fatal(err)
			}
			ws[h] = w
		}
		errs := make([]error, hosts)
		var wg sync.WaitGroup
		for h, w := range ws {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[h] = w.Leave()
			}()
		}
		wg.Wait()
		for h, err := range errs {
			if err != nil {
				t.Fatalf("round %d, host %d: %v", round, h, err)
			}
		}
	}
}
