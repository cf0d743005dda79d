package engine

import (
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
		ents, _ := os.ReadDir(dir)
		if len(ents) != 1 || ents[0].Name() != "keep" {
			names := []string{}
			for _, e := range ents {
				names = append(names, e.Name())
			}
			// An empty DIR/storbench made by the host that finished first may
			// stay: the other cannot know it was not there before.
			if !(order[0] == 0 && len(ents) == 2) {
				t.Errorf("order %v: DIR holds %v", order, names)
			}
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
