package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
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
// not a directory, not writable, or with a DIR/storbench that is a symbolic
// link (CheckLevels).
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
	if err := checkKernelFS(dir); err != nil {
		return err
	}
	if err := syscall.Access(dir, 0x2|0x1); err != nil { // W_OK|X_OK
		return fmt.Errorf("target directory %s is not writable: %v", dir, err)
	}
	return CheckLevels(dir)
}

// CheckLevels refuses, as bad input, a level of dir/storbench/parts... that
// exists as a symbolic link: what storbench makes below it would be made,
// kept with Keep, and removed wherever the link leads, outside dir. dir
// itself may be a link: the user named it. Missing levels are not an error
// (storbench makes them). Every engine's workspace passes here
// (makeWorkspace checks each level as it makes it), so all refuse alike.
func CheckLevels(dir string, parts ...string) error {
	p := dir
	for _, part := range append([]string{"storbench"}, parts...) {
		p = filepath.Join(p, part)
		if err := refuseLink(dir, p); err != nil {
			return err
		}
	}
	return nil
}

// refuseLink refuses p, a level below dir, when it is a symbolic link.
// The error is marked ErrUnsupported: bad input found before any load, so
// a refusal on a remote agent exits 2 as a local one does.
func refuseLink(dir, p string) error {
	fi, err := os.Lstat(p)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return nil // missing (made by storbench), or unreadable (Mkdir says)
	}
	return Unsupported(fmt.Sprintf("%s is a symbolic link; storbench works only in directories it can see are inside %s (remove the link, or give another directory)", p, dir))
}

// checkResolved refuses a workspace path p that, with every link resolved,
// is not dir/parts... resolved: a level was made a symbolic link between
// refuseLink's look and the Mkdir below it.
func checkResolved(dir, p string, parts []string) error {
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fmt.Errorf("target directory %s: %v", dir, unwrapPath(err))
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return fmt.Errorf("%s: %v", p, unwrapPath(err))
	}
	if want := filepath.Join(append([]string{realDir}, parts...)...); real != want {
		return Unsupported(fmt.Sprintf("%s resolves to %s, not %s: a symbolic link leads out of %s; storbench stopped there", p, real, want, dir))
	}
	return nil
}

// NewWorkspace creates the phase directory under dir. It fails if the phase
// directory already exists, since then it would not be storbench's alone.
func NewWorkspace(dir, runID, host, phase string) (*Workspace, error) {
	if err := CheckDir(dir); err != nil {
		return nil, err
	}
	if strings.EqualFold(host, SharedName) {
		// Any case: on a file system that ignores case it is the same
		// directory.
		return nil, fmt.Errorf("host name %q is reserved for the run's shared area (%s); give the host another name", host, SharedArea(dir, runID))
	}
	// <run id> and <host> are the run's own; storbench, <run id> and <host>
	// may exist already (another run, host or phase made them), the phase
	// directory may not.
	return makeWorkspace(dir, runID, []string{"storbench", runID, host, phase},
		func(i int) bool { return i == 1 || i == 2 }, func(i int) bool { return i < 3 })
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
	// Every level below storbench is the run's own, and any may exist
	// already: another host of the run made it.
	w, err := makeWorkspace(dir, runID, []string{"storbench", runID, SharedName, name},
		func(i int) bool { return i >= 1 }, func(int) bool { return true })
	if err != nil {
		return nil, err
	}
	if len(w.created) == 0 || w.created[len(w.created)-1] != w.Path {
		// Joined: Remove deletes the shared directory all the same.
		w.created = append(w.created, w.Path)
	}
	return w, nil
}

// SharedJoinWait bounds how long a host that is not a phase's first
// waits for the first to make a shared directory (SharedWorkspaceOf).
const SharedJoinWait = time.Minute

// SharedWorkspaceOf is SharedWorkspace for the host of rank rank among a
// phase's hosts: the first (rank 0) makes the directory, the others wait
// until they see it (at most SharedJoinWait) and join it. No two clients
// of a shared file system create one directory at the same instant:
// GlusterFS's replicated volumes answer that with a lasting EIO on it.
func SharedWorkspaceOf(dir, runID, name string, rank int) (*Workspace, error) {
	if rank > 0 {
		p := filepath.Join(SharedArea(dir, runID), name)
		deadline := time.Now().Add(SharedJoinWait)
		for {
			if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
				break
			}
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("%s did not appear within %v: the phase's first host makes it, and did not", p, SharedJoinWait)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return SharedWorkspace(dir, runID, name)
}

// MaxNameBytes is the longest file name Linux file systems take (NAME_MAX).
const MaxNameBytes = 255

// CheckPathElement refuses a name that cannot be one directory level of a
// workspace: empty, "." or "..", holding a '/', or longer than a file
// system takes.
func CheckPathElement(part string) error {
	switch {
	case part == "" || part == "." || part == ".." || filepath.Base(part) != part || strings.ContainsRune(part, '/'):
		return fmt.Errorf("invalid path element %q", part)
	case len(part) > MaxNameBytes:
		return fmt.Errorf("path element %.20q... is %d bytes long, over the %d a file name may have", part, len(part), MaxNameBytes)
	}
	return nil
}

// makeWorkspace creates dir/parts[0]/parts[1]/... level by level. ours(i)
// says level i is the run's own (removed when empty), mayExist(i) that it
// may be there already; a level that exists when it may not is refused,
// with what this call created removed again. Making <dir>/storbench leaves
// the run's marker in it.
func makeWorkspace(dir, runID string, parts []string, ours, mayExist func(i int) bool) (*Workspace, error) {
	w := &Workspace{top: filepath.Join(dir, "storbench")}
	w.marker = filepath.Join(w.top, createdMarker+runID)
	// Every level is checked before the first is made: a bad one found
	// half way would leave the levels above it behind.
	for _, part := range parts {
		if err := CheckPathElement(part); err != nil {
			return nil, err
		}
	}
	p := dir
	retries := 0
	for i := 0; i < len(parts); i++ {
		p = filepath.Join(p, parts[i])
		if err := refuseLink(dir, p); err != nil {
			w.Remove()
			return nil, err
		}
		if ours(i) && !slices.Contains(w.ours, p) {
			w.ours = append(w.ours, p)
		}
		err := os.Mkdir(p, 0o755)
		if err == nil && i == 0 {
			if merr := os.WriteFile(w.marker, nil, 0o644); merr != nil {
				os.Remove(p)
				return nil, fmt.Errorf("create %s: %v", w.marker, unwrapPath(merr))
			}
		}
		if staleParent(err) && i > 0 && retries < mkdirRetries {
			// Another client of a shared file system removed (or
			// re-created) a level above since this one looked it up:
			// its cache holds a name or handle that is gone. Walk down
			// from dir again, looking every level up afresh.
			retries++
			time.Sleep(time.Duration(retries) * 20 * time.Millisecond)
			p, i = dir, -1
			continue
		}
		switch {
		case err == nil:
			if !slices.Contains(w.created, p) {
				w.created = append(w.created, p)
			}
		case errors.Is(err, os.ErrExist) && mayExist(i):
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
	if err := checkResolved(dir, p, parts); err != nil {
		// Nothing is removed: a path through the link would remove what
		// is where it leads, which may not be storbench's.
		return nil, err
	}
	w.Path = p
	return w, nil
}

// mkdirRetries bounds how often makeWorkspace walks down again after a
// level above vanished under it (20 ms more each time: 1.1 s in all).
const mkdirRetries = 10

// staleParent says a Mkdir failed because a level above it is gone from
// the file system while this client still resolved it: ENOENT (the
// parent was removed by another client) or ESTALE (its handle is no
// longer valid on the server, as GlusterFS and NFS say).
func staleParent(err error) bool {
	return errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ESTALE)
}

// Remove deletes the phase directory with everything in it, then each parent
// this workspace created, if it is empty (another host or phase may still use
// it), and the run's own <run id> and <host> levels when empty. Parents that
// existed before the run are never removed; <dir>/storbench goes only when
// this run made it (its marker is there) and nothing else is in it. What
// cannot be removed is returned as a *LeftoverError with its count.
func (w *Workspace) Remove() error { return w.remove(true) }

// Leave is Remove for a host that joined a shared directory and removed
// its own entries in it: the directory goes only when it is empty (the
// last host to leave takes it), then the levels above as Remove does.
func (w *Workspace) Leave() error { return w.remove(false) }

func (w *Workspace) remove(all bool) error {
	var first error
	for i := len(w.created) - 1; i >= 0; i-- {
		p := w.created[i]
		var err error
		switch p {
		case w.Path:
			if !all {
				break
			}
			if l := removeAll(p); l != nil {
				first = &LeftoverError{Items: []Leftover{*l}}
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

// removeAll removes p with everything in it, and says what stayed when it
// could not. Its files go first, several at once (removeFiles); then
// os.RemoveAll takes the directories and whatever is left.
func removeAll(p string) *Leftover {
	if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
		removeFiles(p)
	}
	err := os.RemoveAll(p)
	if err == nil || errors.Is(err, os.ErrNotExist) {
		return nil
	}
	n, ok := countEntries(p)
	l := Leftover{What: "files and directories", Where: p, Reason: "cleanup: " + unwrapPath(err).Error()}
	if ok {
		l.Count = &n
	}
	return &l
}

// removeWorkers is how many files removeFiles removes at once.
const removeWorkers = 8

// removeFiles removes the files under dir (every entry but directories,
// symbolic links as links, never followed) with removeWorkers at once,
// then the directories it emptied, deepest first. The unlink of a file
// whose pages are in the page cache frees them, which is most of the
// time of removing what fio laid out (4 GiB in 64 files took 1 s one
// after the other, as long as rm -rf); on a network file system each
// unlink is a round trip. Several at once take half the time on 2 cores.
// It says nothing of what it could not remove: os.RemoveAll, after it,
// does and reports. A directory is read 1,024 entries at a time.
func removeFiles(dir string) {
	files := make(chan string, 1024)
	var wg sync.WaitGroup
	for range removeWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range files {
				_ = os.Remove(f)
			}
		}()
	}
	var dirs []string
	var walk func(d string)
	walk = func(d string) {
		f, err := os.Open(d)
		if err != nil {
			return
		}
		var sub []string
		for {
			ents, err := f.ReadDir(1024)
			for _, e := range ents {
				if p := filepath.Join(d, e.Name()); e.IsDir() {
					sub = append(sub, p)
				} else {
					files <- p
				}
			}
			if err != nil {
				break
			}
		}
		f.Close()
		dirs = append(dirs, d)
		for _, s := range sub {
			walk(s)
		}
	}
	walk(dir)
	close(files)
	wg.Wait()
	for i := len(dirs) - 1; i > 0; i-- { // dirs[0] is dir: os.RemoveAll's
		_ = os.Remove(dirs[i])
	}
}

// SharedArea is the directory of a run that all its hosts share:
// <dir>/storbench/<run id>/shared. Its entries start with the name of what
// makes them, so that each can remove its own (RemoveSharedEntries): fio's
// are "fio" (shared phases' files) and "fio-<host>" (a host's files kept
// for a later phase), the run's probe's "probe-<nonce>"; md's start with
// "md".
func SharedArea(dir, runID string) string {
	return filepath.Join(dir, "storbench", runID, SharedName)
}

// SharedUser is implemented by engines whose phases work in the run's
// shared area (SharedWorkspace) rather than, or besides, each host's own
// directory. The run proves that the hosts of such a phase see one file
// system at that directory before any phase runs (the probe: each host
// writes a file there and every host must read every other's back), and
// refuses the run naming the hosts that do not.
//
// Cleanup once: an entry of the shared area is removed by one host (rank
// 0), in the Cleanup of the last phase that uses it; the controller starts
// any host's Cleanup only after every host's Run has ended, so no barrier
// is needed for that. Entries a later phase still needs stay until that
// phase. Whatever is left - a run that failed, was interrupted or lost a
// host between - goes at the end of the run: one agent removes the whole
// shared area of every directory a SharedUser phase named (RemoveShared),
// unless the run keeps its files.
type SharedUser interface {
	// SharedDir returns the target directory whose shared area phase p,
	// run on hosts hosts, works in, and false when p works in no shared
	// area.
	SharedDir(p Phase, hosts int) (dir string, ok bool)
}

// RemoveSharedEntries removes, with everything in them, the entries of the
// run's shared area on dir whose names match, then the shared area and the
// run's own levels above it when they are empty (and <dir>/storbench when
// this run made it). One host calls it, after every host finished with
// those entries. A shared area that is not there is not an error. What
// could not be removed comes back as a *LeftoverError.
func RemoveSharedEntries(dir, runID string, match func(name string) bool) error {
	area := SharedArea(dir, runID)
	top := filepath.Join(dir, "storbench")
	w := &Workspace{ours: []string{filepath.Join(top, runID), area}, top: top, marker: filepath.Join(top, createdMarker+runID)}
	ents, err := os.ReadDir(area)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		w.remove(false)
		return &LeftoverError{Items: []Leftover{{What: "files and directories", Where: area, Reason: "cleanup: " + unwrapPath(err).Error()}}}
	}
	var left []Leftover
	for _, e := range ents {
		if !match(e.Name()) {
			continue
		}
		if l := removeAll(filepath.Join(area, e.Name())); l != nil {
			left = append(left, *l)
		}
	}
	w.remove(false)
	if len(left) > 0 {
		return &LeftoverError{Items: left}
	}
	return nil
}

// SharedPin is the file that holds a run's shared area in place from the
// probe to the run-level cleanup (PinSharedArea).
const SharedPin = ".storbench-run"

// PinSharedArea makes the run's shared area on dir, with the levels above
// it, and leaves a file in it so that it is never empty until the run
// ends: no phase's or probe's cleanup removes it, and RemoveShared, after
// the last phase, takes it with the rest. One host calls it, before the
// probe, so the hosts never race to create, remove and re-create the same
// directories from different clients - which a shared file system with
// client caches (GlusterFS) answers with ENOENT or ESTALE.
func PinSharedArea(dir, runID string) error {
	if err := CheckDir(dir); err != nil {
		return err
	}
	w, err := makeWorkspace(dir, runID, []string{"storbench", runID, SharedName},
		func(i int) bool { return i >= 1 }, func(int) bool { return true })
	if err != nil {
		return err
	}
	pin := filepath.Join(w.Path, SharedPin)
	if err := os.WriteFile(pin, nil, 0o644); err != nil {
		w.Remove()
		return fmt.Errorf("create %s: %v", pin, unwrapPath(err))
	}
	return nil
}

// RemoveShared removes the run's whole shared area on dir: the run-level
// cleanup after the last phase (see SharedUser).
func RemoveShared(dir, runID string) error {
	return RemoveSharedEntries(dir, runID, func(string) bool { return true })
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
