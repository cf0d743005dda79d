package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// swapLevel renames dir/level aside and puts a link to a new directory
// outside dir in its place, holding a foreign file at every place the
// workspace's phase directory (rel, below level) and its parent would
// be. It returns where the level went and a check that the foreign files
// are all there, unchanged.
func swapLevel(t *testing.T, dir, level, rel string) (string, func()) {
	t.Helper()
	outside := t.TempDir()
	foreign := []string{"f", filepath.Join(rel, "f"), filepath.Join(filepath.Dir(rel), "f")}
	for _, f := range foreign {
		p := filepath.Join(outside, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("foreign "+f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(dir, level)
	aside := p + ".aside"
	if err := os.Rename(p, aside); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, p); err != nil {
		t.Fatal(err)
	}
	return aside, func() {
		t.Helper()
		for _, f := range foreign {
			if b, err := os.ReadFile(filepath.Join(outside, f)); err != nil || string(b) != "foreign "+f {
				t.Errorf("foreign file %s where the link leads: %q, %v", f, b, err)
			}
		}
	}
}

// Every removal of a workspace, its own or the run's shared area's, in
// the background or not, goes through handles that never follow a link:
// a level swapped for a link to a directory outside DIR (shaped like the
// workspace, with foreign files) after the workspace was made removes
// nothing there, and the workspace, moved aside, is named as left behind,
// with what it holds. With openat2 and, as on kernels without it, with
// O_NOFOLLOW alone.
func TestRemovalThroughASwappedLevel(t *testing.T) {
	for _, fallback := range []bool{false, true} {
		name := "openat2"
		if fallback {
			name = "O_NOFOLLOW"
		}
		t.Run(name, func(t *testing.T) {
			was := noOpenat2.Load()
			noOpenat2.Store(fallback)
			defer noOpenat2.Store(was)
			for _, way := range []string{"Remove", "StartRemove", "RemoveContext"} {
				for _, level := range []string{"storbench/r", "storbench/r/h"} {
					t.Run(way+"/"+level, func(t *testing.T) { swappedRemoval(t, way, level) })
				}
			}
			t.Run("RemoveShared", swappedSharedRemoval)
		})
	}
}

func swappedRemoval(t *testing.T, way, level string) {
	dir := t.TempDir()
	w, err := NewWorkspace(dir, "r", "h", "p")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.Path, "data"), []byte("the run's"), 0o644); err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(filepath.Join(dir, level), w.Path)
	aside, check := swapLevel(t, dir, level, rel)
	switch way {
	case "Remove":
		err = w.Remove()
	case "StartRemove":
		err = w.StartRemove()(context.Background())
	default:
		err = w.RemoveContext(context.Background())
	}
	check()
	var le *LeftoverError
	if !errors.As(err, &le) || len(le.Items) != 1 {
		t.Fatalf("%s: %v, want one leftover", way, err)
	}
	l := le.Items[0]
	if want := filepath.Join(aside, rel); l.Where != want || l.Count == nil || *l.Count != 2 {
		t.Errorf("leftover %s, want 2 files and directories in %s", l.Text(), want)
	}
	if !strings.Contains(l.Reason, "symbolic link") || !strings.Contains(l.Reason, "moved here") {
		t.Errorf("reason %q does not say the level is a link and the workspace was moved", l.Reason)
	}
	if b, err := os.ReadFile(filepath.Join(aside, rel, "data")); err != nil || string(b) != "the run's" {
		t.Errorf("the workspace moved aside lost its file: %q, %v", b, err)
	}
}

func swappedSharedRemoval(t *testing.T) {
	dir := t.TempDir()
	if err := PinSharedArea(dir, "r"); err != nil {
		t.Fatal(err)
	}
	w, err := SharedWorkspace(dir, "r", "fio")
	if err != nil {
		t.Fatal(err)
	}
	w.Keep()
	_, check := swapLevel(t, dir, "storbench/r", "shared/fio")
	err = RemoveShared(dir, "r")
	check()
	var le *LeftoverError
	if !errors.As(err, &le) || !strings.Contains(le.Error(), "symbolic link") {
		t.Errorf("RemoveShared through a link: %v, want a leftover saying so", err)
	}
	wait := StartRemoveSharedEntries(dir, "r", func(string) bool { return true })
	if err := wait(context.Background()); !errors.As(err, &le) {
		t.Errorf("StartRemoveSharedEntries through a link: %v, want a leftover", err)
	}
	check()
}

// A level renamed aside and replaced by another directory (not a link)
// holding foreign data where the workspace was is not the directory
// storbench made: nothing in it is removed, and the workspace is named
// where it went.
func TestRemovalOfAReplacedLevel(t *testing.T) {
	dir := t.TempDir()
	w, err := NewWorkspace(dir, "r", "h", "p")
	if err != nil {
		t.Fatal(err)
	}
	host := filepath.Join(dir, "storbench", "r", "h")
	if err := os.Rename(host, host+".aside"); err != nil {
		t.Fatal(err)
	}
	foreign := filepath.Join(host, "p", "foreign")
	if err := os.MkdirAll(filepath.Dir(foreign), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(foreign, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = w.Remove()
	if b, rerr := os.ReadFile(foreign); rerr != nil || string(b) != "x" {
		t.Errorf("the foreign file in the directory put in the level's place: %q, %v", b, rerr)
	}
	var le *LeftoverError
	if !errors.As(err, &le) || le.Items[0].Where != filepath.Join(host+".aside", "p") || !strings.Contains(le.Items[0].Reason, "another directory") {
		t.Errorf("Remove: %v, want the workspace named in %s.aside, its level another directory now", err, host)
	}
}
