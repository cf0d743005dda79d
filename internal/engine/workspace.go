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

	"golang.org/x/sys/unix"
)

// Workspace is the directory a file engine works in for one phase:
// <dir>/storbench/<run id>/<host>/<phase>. It remembers which of those levels
// it created, so Remove deletes exactly what storbench made and nothing that
// was there before, and what each level was (device and inode): Remove
// works through handles opened from dir without following a link
// (levels), and removes nothing through a level that is no longer the
// directory it made.
type Workspace struct {
	// Path is the phase directory; everything the engine creates goes below it.
	Path string
	at   levels // storbench, <run id>, <host> (or shared), <phase>
	// created are the levels (indexes in at) this workspace created,
	// outermost first.
	created []int
	// ours are the levels named by this run (<run id> and <host>): no one
	// else's data can be in them, so they go when empty even if another
	// host of the run made them.
	ours []int
	// marker is the name of the file in <dir>/storbench that says this
	// run created it (any host of the run may have): the last host to
	// finish removes both when nothing else is there.
	marker string
	// held is the phase directory, open from when it was made: where it
	// is now when a level above was moved (heldPlace).
	held *os.File
	// runID is the run's; leased says this workspace holds the process's
	// lease on it in the target directory (takeLease).
	runID  string
	leased bool

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
	if last := len(w.at.names) - 1; !slices.Contains(w.created, last) {
		// Joined: Remove deletes the shared directory all the same.
		w.created = append(w.created, last)
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
// the run's marker in it. Each level is made and opened relative to the
// one above it, never through a symbolic link, and its identity kept for
// the removal (levels).
func makeWorkspace(dir, runID string, parts []string, ours, mayExist func(i int) bool) (*Workspace, error) {
	// Every level is checked before the first is made: a bad one found
	// half way would leave the levels above it behind.
	for _, part := range parts {
		if err := CheckPathElement(part); err != nil {
			return nil, err
		}
	}
	w := &Workspace{at: levels{dir: dir, names: parts, ids: make([]fileID, len(parts))}, marker: createdMarker + runID, runID: runID}
	for retries := 0; ; retries++ {
		fd, retry, err := w.make(ours, mayExist)
		if retry && retries < mkdirRetries {
			// Another client of a shared file system removed (or
			// re-created) a level above since this one looked it up:
			// its cache holds a name or handle that is gone. Walk down
			// from dir again, looking every level up afresh.
			time.Sleep(time.Duration(retries+1) * 20 * time.Millisecond)
			continue
		}
		if err != nil {
			if retry {
				w.Remove()
			}
			return nil, err
		}
		w.Path = w.at.path(len(parts))
		w.held = os.NewFile(uintptr(fd), w.Path)
		return w, nil
	}
}

// make walks down from the target directory making each level that is
// missing, and returns the last open. retry says a level above vanished
// meanwhile (staleParent): the walk starts again.
func (w *Workspace) make(ours, mayExist func(i int) bool) (fd int, retry bool, err error) {
	dir := w.at.dir
	fd, err = unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, false, fmt.Errorf("target directory %s: %v", dir, err)
	}
	fail := func(e error) (int, bool, error) {
		unix.Close(fd)
		w.Remove()
		return -1, false, e
	}
	for i, part := range w.at.names {
		p := w.at.path(i + 1)
		if ours(i) && !slices.Contains(w.ours, i) {
			w.ours = append(w.ours, i)
		}
		var st unix.Stat_t
		if unix.Fstatat(fd, part, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return fail(refuseLink(dir, p))
		}
		err := unix.Mkdirat(fd, part, 0o755)
		switch {
		case err == nil:
		case errors.Is(err, unix.EEXIST) && mayExist(i):
		case errors.Is(err, unix.EEXIST):
			return fail(fmt.Errorf("%s already exists; refusing to work in a directory storbench did not create", p))
		case staleParent(err) && i > 0:
			unix.Close(fd)
			return -1, true, fmt.Errorf("create %s: %v", p, err)
		case errors.Is(err, unix.EROFS) || errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM):
			return fail(fmt.Errorf("target directory %s is not writable: %v", dir, err))
		default:
			return fail(fmt.Errorf("create %s: %v", p, err))
		}
		made := err == nil
		next, err := openDirAt(fd, part)
		switch {
		case err == nil:
		case staleParent(err) && i > 0:
			unix.Close(fd)
			return -1, true, fmt.Errorf("open %s: %v", p, err)
		case errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR):
			// Made a link between the look above and the Mkdir: what
			// this call made is removed through handles, never
			// through it.
			return fail(Unsupported(fmt.Sprintf("%s was made a symbolic link while storbench made it; storbench works only in directories it can see are inside %s, and stopped there", p, dir)))
		default:
			return fail(fmt.Errorf("open %s: %v", p, err))
		}
		if made && !slices.Contains(w.created, i) {
			w.created = append(w.created, i)
		}
		id, _ := idOf(next)
		w.at.ids[i] = id
		remember(p, id)
		if made && i == 0 {
			if err := touchAt(next, w.marker); err != nil {
				unix.Close(next)
				_ = unix.Unlinkat(fd, part, unix.AT_REMOVEDIR)
				unix.Close(fd)
				return -1, false, fmt.Errorf("create %s: %v", filepath.Join(p, w.marker), err)
			}
		}
		if i == 0 && !w.leased {
			// Before anything of the run below DIR/storbench.
			w.leased = takeLease(dir, w.runID, next)
		}
		unix.Close(fd)
		fd = next
	}
	return fd, false, nil
}

// touchAt creates the empty file name in the directory open at dirfd,
// or leaves it as it is when it is there; a link there is refused.
func touchAt(dirfd int, name string) error {
	fd, err := unix.Openat(dirfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return err
	}
	return unix.Close(fd)
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
	last := len(w.at.names) - 1
	for i := len(w.created) - 1; i >= 0; i-- {
		n := w.created[i]
		switch {
		case n == last && all:
			if l := w.at.removeAll(w.moved); l != nil {
				first = &LeftoverError{Items: []Leftover{*l}}
			}
			continue
		case n == 0:
			continue // below, by its marker
		}
		err := w.at.upTo(n + 1).rmdir()
		var no *NotOursError
		if errors.As(err, &no) {
			// Said by the phase directory's removal, or by no one: a
			// level someone replaced holds nothing of the run's.
			err = nil
		}
		if err != nil && first == nil {
			first = err
		}
	}
	// The run's own levels made by another host sharing this file system:
	// the last host to finish removes them.
	for i := len(w.ours) - 1; i >= 0; i-- {
		_ = w.at.upTo(w.ours[i] + 1).rmdir()
	}
	// After the last of the run's levels, before DIR/storbench.
	w.release()
	w.removeTop()
	w.created, w.ours = nil, nil
	return first
}

// Keep leaves the workspace as it is, for good: the run keeps its files,
// or they are another's to remove (a place in the run's shared area,
// which the run removes at its end). The workspace gives up its handle
// and its hold on the run's lease. When another host removed the place
// already (it removes a shared directory, and may finish first), this
// host's lease was the last of the run in DIR/storbench: then it takes
// DIR/storbench, made by the run and holding nothing else, as Remove
// does (removeTop; with files kept it stays).
func (w *Workspace) Keep() {
	w.release()
	w.removeTop()
}

func (w *Workspace) release() {
	if w.leased {
		dropLease(w.at.dir, w.runID)
		w.leased = false
	}
	if w.held != nil {
		w.held.Close()
		w.held = nil
	}
}

// Open opens the phase directory as Remove reaches it: from the target
// directory, through no symbolic link, each level checked to be the one
// made. An engine that makes entries in the workspace after Prepare
// makes them relative to it, so that a level replaced meanwhile fails
// the engine's call (a *NotOursError) instead of sending its entries
// where a link leads. The caller closes the descriptor.
func (w *Workspace) Open() (int, error) { return w.at.open() }

// WriteFile writes b to the file name in the phase directory, reached as
// Open reaches it, whole or not at all (a temporary file renamed over
// name): what an engine writes there after Prepare never lands where a
// link swapped in for a level leads.
func (w *Workspace) WriteFile(name string, b []byte) error {
	dfd, err := w.Open()
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	tmp := "." + name + ".tmp"
	fd, err := unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return &os.PathError{Op: "create", Path: filepath.Join(w.Path, tmp), Err: err}
	}
	f := os.NewFile(uintptr(fd), filepath.Join(w.Path, tmp))
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = unix.Renameat(dfd, tmp, dfd, name)
	}
	if err != nil {
		_ = unix.Unlinkat(dfd, tmp, 0)
	}
	return err
}

// moved is where the phase directory storbench made is now ("" when not
// known), and what it holds: the removal names it when a level above it
// was moved away.
func (w *Workspace) moved() (string, *int64) { return heldPlace(w.held) }

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

// SharedArea is the directory of a run that all its hosts share:
// <dir>/storbench/<run id>/shared. Its entries start with the name of what
// makes them, so that each can remove its own (RemoveSharedEntries): fio's
// are "fio" (shared phases' files) and "fio-<host>" (a host's files kept
// for a later phase), the run's probe's "probe-<nonce>"; md's start with
// "md".
func SharedArea(dir, runID string) string {
	return filepath.Join(dir, "storbench", runID, SharedName)
}

// RemoveSharedEntries removes, with everything in them, the entries of the
// run's shared area on dir whose names match, then the shared area and the
// run's own levels above it when they are empty (and <dir>/storbench when
// this run made it). One host calls it, after every host finished with
// those entries. A shared area that is not there is not an error. What
// could not be removed comes back as a *LeftoverError.
func RemoveSharedEntries(dir, runID string, match func(name string) bool) error {
	w := sharedLevels(dir, runID)
	area := w.at.path(3)
	fd, err := w.at.open()
	var no *NotOursError
	var left []Leftover
	switch {
	case errors.As(err, &no):
		left = append(left, Leftover{What: "files and directories", Where: area, Reason: "cleanup: " + no.Error() + ": nothing was removed through it"})
	case err != nil && !errors.Is(err, unix.ENOENT):
		left = append(left, Leftover{What: "files and directories", Where: area, Reason: "cleanup: " + unwrapPath(err).Error()})
	case err == nil:
		names := readNames(fd)
		unix.Close(fd)
		for _, name := range names {
			if !match(name) {
				continue
			}
			if l := w.at.removeEntry(name); l != nil {
				left = append(left, *l)
			}
		}
	}
	if match(SharedPin) {
		// The pin is gone, or its removal reported: this process's
		// hold on the run's lease goes with it.
		unpinLease(dir, runID)
	}
	if no == nil {
		w.remove(false)
	}
	if len(left) > 0 {
		return &LeftoverError{Items: left}
	}
	return nil
}

// sharedLevels is the run's shared area on dir as a workspace whose run
// and shared levels are the run's own (removed when empty), with the
// identities this process knows of them.
func sharedLevels(dir, runID string) *Workspace {
	return &Workspace{at: levelsOf(dir, "storbench", runID, SharedName), ours: []int{1, 2}, marker: createdMarker + runID}
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
	if err := touchAt(int(w.held.Fd()), SharedPin); err != nil {
		w.Remove()
		return fmt.Errorf("create %s: %v", filepath.Join(w.Path, SharedPin), err)
	}
	// The workspace's hold on the lease is the pin's from now on, until
	// the pin goes (RemoveSharedEntries).
	if w.leased && pinLease(dir, runID) {
		w.leased = false
	}
	w.release()
	return nil
}

// RemoveShared removes the run's whole shared area on dir: the run-level
// cleanup after the last phase (see Plan.SharedDir).
func RemoveShared(dir, runID string) error {
	return RemoveSharedEntries(dir, runID, func(string) bool { return true })
}

// removeTop removes <dir>/storbench when this run created it and holds
// nothing but the run's marker. The host that removes the last of the run's
// directories reads the directory after doing so, so one host always sees
// it empty.
func (w *Workspace) removeTop() {
	if len(w.at.names) == 0 {
		return
	}
	top := w.at.upTo(1)
	fd, err := top.open()
	if err != nil {
		return
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstatat(fd, w.marker, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return
	}
	for _, name := range readNames(fd) {
		if name != w.marker {
			return
		}
	}
	if err := unix.Unlinkat(fd, w.marker, 0); err != nil && !errors.Is(err, unix.ENOENT) {
		return
	}
	_ = top.rmdir()
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
