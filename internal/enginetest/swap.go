package enginetest

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
)

// Swapper is a Target whose namespace can be swapped under a running
// phase: a directory tree.
type Swapper interface {
	// SwapOut renames level (a path below the target's top) aside, in
	// its own directory, and puts in its place a symbolic link to a new
	// directory outside the target that holds foreign data where the
	// level's entries were (each directory again, each file by the same
	// name, with other bytes, and a file of its own in each directory).
	// It returns where the level went, a check that the foreign data is
	// unchanged byte for byte and nothing else is there, and a function
	// that puts things back as they were (the link gone, the level back
	// in place).
	SwapOut(t *testing.T, level string) (aside string, check func(t *testing.T), undo func())
}

// swappedWorkspace: a level of the run's namespace renamed aside and
// replaced by a symbolic link to a directory outside the target half a
// second into the phase (a user racing storbench, or a fault) turns no
// removal into a deletion there: what the link leads to is unchanged byte
// for byte after the phase and its cleanup, and the real workspace, left
// where it was moved, is reported as left behind. Locally and, with
// ThroughAgent, in a real agent process.
func (s Suite) swappedWorkspace(t *testing.T) {
	sw, ok := s.Target.(Swapper)
	if !ok {
		t.Skip("the target has no directory a symbolic link could be swapped in for")
	}
	for _, w := range s.ways(t) {
		for _, level := range []string{"", "/" + s.Env.Host} {
			name := w.name + "_run"
			if level != "" {
				name += "_host"
			}
			t.Run(name, func(t *testing.T) {
				id := runID(t)
				s.swapDuringPhase(t, sw, w.eng, id, "storbench/"+id+level)
			})
		}
	}
}

func (s Suite) swapDuringPhase(t *testing.T, sw Swapper, eng engine.Engine, id, level string) {
	check := s.Target.PlaceForeign(t, id)
	env := s.Env
	env.RunID = id
	pr, err := eng.Prepare(context.Background(), env, s.Phase(t, "conformance", false))
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := pr.Run(context.Background(), time.Now(), nil)
		done <- err
	}()
	var runErr error
	ran := false
	select {
	case runErr = <-done:
		ran = true
	case <-time.After(500 * time.Millisecond):
	}
	aside, checkOutside, undo := sw.SwapOut(t, level)
	defer func() {
		undo()
		s.Target.Purge(t, id)
	}()
	if !ran {
		select {
		case runErr = <-done:
		case <-time.After(2 * time.Minute):
			t.Fatal("Run did not end within 2 minutes")
		}
	}
	// Run may fail: its workspace was taken away. What matters is what
	// the cleanup does.
	t.Logf("Run: %v", runErr)
	cerr := pr.Cleanup(context.Background())
	t.Logf("Cleanup: %v", cerr)
	checkOutside(t)
	check(t)
	_, left := engine.SplitLeftovers(cerr)
	named := false
	for _, l := range left {
		if strings.Contains(l.Where, aside) || strings.Contains(l.Reason, aside) {
			named = true
		}
	}
	if !named {
		t.Errorf("Cleanup said %v: the workspace, moved to %s, is not reported as left behind", cerr, aside)
	}
	if _, err := os.Lstat(aside); err != nil {
		t.Errorf("the workspace moved to %s was removed or lost: %v", aside, err)
	}
}

// SwapOut moves Dir/level to Dir/level.aside and puts a link to a new
// directory outside Dir in its place, holding foreign data shaped as what
// was moved (at most 200 entries).
func (f Files) SwapOut(t *testing.T, level string) (string, func(*testing.T), func()) {
	t.Helper()
	outside := t.TempDir()
	p := filepath.Join(f.Dir, level)
	want := map[string][]byte{}
	n := 0
	put := func(rel string, b []byte) {
		q := filepath.Join(outside, rel)
		if err := os.WriteFile(q, b, 0o644); err != nil {
			t.Fatal(err)
		}
		want[q] = b
	}
	put("foreign-top", bytes.Repeat([]byte("outside "), 100))
	_ = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		if err != nil || q == p {
			return nil
		}
		if n++; n > 200 {
			return fs.SkipAll
		}
		rel, _ := filepath.Rel(p, q)
		switch {
		case d.IsDir():
			if err := os.Mkdir(filepath.Join(outside, rel), 0o755); err != nil {
				t.Fatal(err)
			}
			put(filepath.Join(rel, "foreign"), []byte("foreign data in "+rel))
		case d.Type().IsRegular():
			put(rel, bytes.Repeat([]byte{0x5a}, 4096+n))
		}
		return nil
	})
	aside := p + ".aside"
	if err := os.Rename(p, aside); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, p); err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T) {
		t.Helper()
		for q, b := range want {
			got, err := os.ReadFile(q)
			if err != nil || !bytes.Equal(got, b) {
				t.Errorf("foreign file %s, where the link led, changed or gone (%v, %d of %d bytes)", q, err, len(got), len(b))
			}
		}
		_ = filepath.WalkDir(outside, func(q string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && want[q] == nil {
				t.Errorf("made where the link led: %s", q)
			}
			return nil
		})
	}
	undo := func() {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Error(err)
		}
		if err := os.Rename(aside, p); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Error(err)
		}
	}
	return aside, check, undo
}
