package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Two hosts of one run on a shared file system: whichever finishes last,
// nothing of the run is left, and what was in DIR before stays.
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
		want := "[keep]"
		if order[0] == 0 {
			// DIR/storbench was made by the host that finished first; the
			// other cannot know it was not there before, so it stays, empty.
			want = "[keep storbench]"
			if left, _ := os.ReadDir(filepath.Join(dir, "storbench")); len(left) != 0 {
				t.Errorf("order %v: DIR/storbench is not empty", order)
			}
		}
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
