package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// Workspace is the directory a file engine works in for one phase:
// <dir>/storbench/<run id>/<host>/<phase>. It remembers which of those levels
// it created, so Remove deletes exactly what storbench made and nothing that
// was there before.
type Workspace struct {
	// Path is the phase directory; everything the engine creates goes below it.
	Path    string
	created []string // directories this workspace created, outermost first
	// ours are the levels named by this run (<run id> and <host>): no one
	// else's data can be in them, so they go when empty even if another
	// host of the run made them.
	ours []string
	// top is <dir>/storbench and marker the file in it that says this run
	// created it (any host of the run may have): the last host to finish
	// removes both when nothing else is in top.
	top, marker string

	mu        sync.Mutex
	removing  chan struct{} // closed when RemoveContext's removal ends
	removeErr error
}

// createdMarker is the file a run leaves in <dir>/storbench when it created
// that directory, so that whichever host of the run finishes last (not
// only the one that made it) removes it once empty. A directory that was
// there before the run has no marker of this run and is never removed.
const createdMarker = ".storbench-created-by-"

// CheckDir returns a one-line error when dir cannot hold a benchmark: missing,
// not a directory, or not writable.
func CheckDir(dir string) error {
	if dir == "" {
		return errors.New("no target directory given (use -d DIR)")
	}
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("target directory %s does not exist", dir)
	case err != nil:
		return fmt.Errorf("target directory %s: %v", dir, unwrapPath(err))
	case !st.IsDir():
		return fmt.Errorf("target %s is not a directory", dir)
	}
	if err := syscall.Access(dir, 0x2|0x1); err != nil { // W_OK|X_OK
		return fmt.Errorf("target directory %s is not writable: %v", dir, err)
	}
	return nil
}

// NewWorkspace creates the phase directory under dir. It fails if the phase
// directory already exists, since then it would not be storbench's alone.
func NewWorkspace(dir, runID, host, phase string) (*Workspace, error) {
	if err := CheckDir(dir); err != nil {
		return nil, err
	}
	w := &Workspace{top: filepath.Join(dir, "storbench")}
	w.marker = filepath.Join(w.top, createdMarker+runID)
	p := dir
	for i, part := range []string{"storbench", runID, host, phase} {
		if part == "" || part == "." || part == ".." || filepath.Base(part) != part {
			return nil, fmt.Errorf("invalid path element %q", part)
		}
		p = filepath.Join(p, part)
		if i == 1 || i == 2 {
			w.ours = append(w.ours, p)
		}
		err := os.Mkdir(p, 0o755)
		if err == nil && i == 0 {
			if merr := os.WriteFile(w.marker, nil, 0o644); merr != nil {
				os.Remove(p)
				return nil, fmt.Errorf("create %s: %v", w.marker, unwrapPath(merr))
			}
		}
		switch {
		case err == nil:
			w.created = append(w.created, p)
		case errors.Is(err, os.ErrExist) && i < 3:
			// A shared parent: another run, host or phase made it.
		case errors.Is(err, os.ErrExist):
			w.Remove()
			return nil, fmt.Errorf("%s already exists; refusing to work in a directory storbench did not create", p)
		default:
			w.Remove()
			if errors.Is(err, syscall.EROFS) || errors.Is(err, os.ErrPermission) {
				return nil, fmt.Errorf("target directory %s is not writable: %v", dir, unwrapPath(err))
			}
			return nil, fmt.Errorf("create %s: %v", p, unwrapPath(err))
		}
	}
	w.Path = p
	return w, nil
}

// SharedName is the level of a run's directory that all its hosts share:
// <dir>/storbench/<run id>/shared. No host is given this name.
const SharedName = "shared"

// SharedWorkspace joins, or creates when this host comes first, the
// directory <dir>/storbench/<run id>/shared/<name> that every host of the
// run works in for work they share (one tree, one file for all hosts).
// Unlike NewWorkspace it accepts the directory when another host of the
// run made it: every level below <run id> is the run's own. Only one host
// removes it (Remove), once every host has finished with it.
func SharedWorkspace(dir, runID, name string) (*Workspace, error) {
	if err := CheckDir(dir); err != nil {
		return nil, err
	}
	w := &Workspace{top: filepath.Join(dir, "storbench")}
	w.marker = filepath.Join(w.top, createdMarker+runID)
	p := dir
	for i, part := range []string{"storbench", runID, SharedName, name} {
		if part == "" || part == "." || part == ".." || filepath.Base(part) != part {
			return nil, fmt.Errorf("invalid path element %q", part)
		}
		p = filepath.Join(p, part)
		if i >= 1 {
			w.ours = append(w.ours, p)
		}
		err := os.Mkdir(p, 0o755)
		if err == nil && i == 0 {
			if merr := os.WriteFile(w.marker, nil, 0o644); merr != nil {
				os.Remove(p)
				return nil, fmt.Errorf("create %s: %v", w.marker, unwrapPath(merr))
			}
		}
		switch {
		case err == nil:
			w.created = append(w.created, p)
		case errors.Is(err, os.ErrExist):
			// Another run (storbench), or another host of this run.
		default:
			w.Remove()
			if errors.Is(err, syscall.EROFS) || errors.Is(err, os.ErrPermission) {
				return nil, fmt.Errorf("target directory %s is not writable: %v", dir, unwrapPath(err))
			}
			return nil, fmt.Errorf("create %s: %v", p, unwrapPath(err))
		}
	}
	w.Path = p
	if len(w.created) == 0 || w.created[len(w.created)-1] != p {
		// Joined: Remove deletes the shared directory all the same.
		w.created = append(w.created, p)
	}
	return w, nil
}

// Remove deletes the phase directory with everything in it, then each parent
// this workspace created, if it is empty (another host or phase may still use
// it), and the run's own <run id> and <host> levels when empty. Parents that
// existed before the run are never removed; <dir>/storbench goes only when
// this run made it (its marker is there) and nothing else is in it. What
// cannot be removed is returned as a *LeftoverError with its count.
func (w *Workspace) Remove() error {
	var first error
	for i := len(w.created) - 1; i >= 0; i-- {
		p := w.created[i]
		var err error
		switch p {
		case w.Path:
			err = os.RemoveAll(p)
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				n, ok := countEntries(p)
				l := Leftover{What: "files and directories", Where: p, Reason: "cleanup: " + unwrapPath(err).Error()}
				if ok {
					l.Count = &n
				}
				first = &LeftoverError{Items: []Leftover{l}}
			}
			continue
		case w.top:
			continue // below, by its marker
		}
		err = os.Remove(p)
		if isNotEmpty(err) {
			err = nil
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) && first == nil {
			first = err
		}
	}
	// The run's own levels made by another host sharing this file system:
	// the last host to finish removes them.
	for i := len(w.ours) - 1; i >= 0; i-- {
		_ = os.Remove(w.ours[i])
	}
	w.removeTop()
	w.created, w.ours = nil, nil
	return first
}

// RemoveContext is Remove with a bound: on a file system that stopped
// answering the removal may block in the kernel for good, so when ctx ends
// first it returns the phase directory as left behind, and the removal
// goes on by itself (a later call waits for that same removal).
func (w *Workspace) RemoveContext(ctx context.Context) error {
	w.mu.Lock()
	if w.removing == nil {
		done := make(chan struct{})
		w.removing = done
		go func() {
			err := w.Remove()
			w.mu.Lock()
			w.removeErr = err
			w.mu.Unlock()
			close(done)
		}()
	}
	done := w.removing
	w.mu.Unlock()
	select {
	case <-done:
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.removeErr
	case <-ctx.Done():
		return &LeftoverError{Items: []Leftover{{What: "files and directories", Where: w.Path,
			Reason: "cleanup: the file system did not answer in time (" + ctx.Err().Error() + "); the removal goes on"}}}
	}
}

// removeTop removes <dir>/storbench when this run created it and holds
// nothing but the run's marker. The host that removes the last of the run's
// directories reads the directory after doing so, so one host always sees
// it empty.
func (w *Workspace) removeTop() {
	if w.top == "" {
		return
	}
	if _, err := os.Lstat(w.marker); err != nil {
		return
	}
	ents, err := os.ReadDir(w.top)
	if err != nil {
		return
	}
	for _, e := range ents {
		if e.Name() != filepath.Base(w.marker) {
			return
		}
	}
	if err := os.Remove(w.marker); err != nil && !errors.Is(err, os.ErrNotExist) {
		return
	}
	_ = os.Remove(w.top)
}

func isNotEmpty(err error) bool {
	return errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST)
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
