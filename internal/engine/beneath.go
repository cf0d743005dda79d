package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// What storbench removes, it removes through directory handles that
// cannot leave the target directory: a workspace's levels are opened one
// after the other from DIR, none through a symbolic link (openDirAt),
// each checked against the device and inode it had when storbench made or
// joined it, and everything is removed relative to those handles. A level
// renamed and replaced by a link (or by another directory) while a phase
// ran is no longer the workspace storbench made: nothing is removed
// through it, and the workspace is reported as left behind, where it is
// now. A path, by contrast, is resolved again at each call: os.RemoveAll
// of DIR/storbench/<run>/<host>/<phase> removed the phase directory
// wherever a link swapped in for <host> led.

// fileID is what a directory is, whatever its name: its device and inode.
// The zero fileID is "not known".
type fileID struct{ dev, ino uint64 }

func (id fileID) known() bool { return id != fileID{} }

// idOf returns the identity of the file open at fd.
func idOf(fd int) (fileID, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fileID{}, err
	}
	return fileID{uint64(st.Dev), uint64(st.Ino)}, nil
}

// openDirAt opens the directory name (one path element) in the directory
// open at parent, never through a symbolic link: a link there fails with
// ELOOP (or ENOTDIR). It uses openat2 with RESOLVE_BENEATH and
// RESOLVE_NO_SYMLINKS where the kernel has it (openBeneath), O_NOFOLLOW
// otherwise.
func openDirAt(parent int, name string) (int, error) {
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	for {
		fd, err := openBeneath(parent, name, flags)
		if err == errNoOpenat2 {
			fd, err = unix.Openat(parent, name, flags, 0)
		}
		if err == unix.EINTR {
			continue
		}
		return fd, err
	}
}

// errNoOpenat2 says openBeneath cannot be used here (an old kernel, or a
// seccomp filter that refuses the call): openDirAt falls back on
// O_NOFOLLOW.
var errNoOpenat2 = errors.New("openat2 not available")

// NotOursError says a level of a workspace is no longer the directory
// storbench made: a symbolic link, something that is not a directory, or
// another directory put in its place. Nothing is removed through it.
type NotOursError struct {
	Path string // the level, as storbench named it
	Why  string // what it is now
}

func (e *NotOursError) Error() string {
	return e.Path + " " + e.Why + ", not the directory storbench made"
}

// notOurs describes what is at path now, as open answered err, or as a
// directory other than want.
func notOurs(path string, err error) *NotOursError {
	if err == nil {
		return &NotOursError{path, "is another directory now"}
	}
	// O_DIRECTORY with O_NOFOLLOW answers a link with ENOTDIR, and
	// RESOLVE_NO_SYMLINKS with ELOOP: the link is told by reading it.
	if to, lerr := os.Readlink(path); lerr == nil {
		return &NotOursError{path, "is a symbolic link now (to " + to + ")"}
	}
	if errors.Is(err, unix.ELOOP) {
		return &NotOursError{path, "is a symbolic link now"}
	}
	return &NotOursError{path, "is not a directory now"}
}

// levels is a path below a target directory, one name per level, with
// the identity each level had when storbench made or joined it (zero when
// not known: then only links are refused there).
type levels struct {
	dir   string // the target directory, which the user named: a link there is followed
	names []string
	ids   []fileID
}

// path is the path of the first n levels.
func (l levels) path(n int) string {
	return filepath.Join(append([]string{l.dir}, l.names[:n]...)...)
}

// upTo is the first n levels.
func (l levels) upTo(n int) levels {
	return levels{dir: l.dir, names: l.names[:n:n], ids: l.ids[:n:n]}
}

// renamed is l with its last level named name (the same directory, moved
// aside in its parent).
func (l levels) renamed(name string) levels {
	n := len(l.names)
	out := levels{dir: l.dir, names: append(l.names[:n-1:n-1], name), ids: l.ids}
	return out
}

// open opens the last of the levels, walking down from the target
// directory without following a link, and checking each level whose
// identity is known. A level that is gone answers ENOENT; one that is not
// the directory storbench made a *NotOursError.
func (l levels) open() (int, error) {
	fd, err := unix.Open(l.dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &os.PathError{Op: "open", Path: l.dir, Err: err}
	}
	for i, name := range l.names {
		next, err := openDirAt(fd, name)
		unix.Close(fd)
		if err != nil {
			if errors.Is(err, unix.ENOENT) {
				return -1, &os.PathError{Op: "open", Path: l.path(i + 1), Err: err}
			}
			if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
				return -1, notOurs(l.path(i+1), err)
			}
			return -1, &os.PathError{Op: "open", Path: l.path(i + 1), Err: err}
		}
		if i < len(l.ids) && l.ids[i].known() {
			if id, err := idOf(next); err != nil || id != l.ids[i] {
				unix.Close(next)
				return -1, notOurs(l.path(i+1), nil)
			}
		}
		fd = next
	}
	return fd, nil
}

// rmdir removes the last level when it is empty; ENOENT and ENOTEMPTY
// are not errors (gone already; another host or phase still in it).
func (l levels) rmdir() error {
	n := len(l.names)
	fd, err := l.open()
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil
		}
		return err
	}
	unix.Close(fd)
	parent, err := l.upTo(n - 1).open()
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			// Another host sharing the file system removed the level,
			// then its parent, since we found it: nothing is left.
			return nil
		}
		return err
	}
	defer unix.Close(parent)
	err = unix.Unlinkat(parent, l.names[n-1], unix.AT_REMOVEDIR)
	if err == nil || errors.Is(err, unix.ENOENT) || isNotEmpty(err) {
		if err == nil {
			forget(l.path(n))
		}
		return nil
	}
	return &os.PathError{Op: "remove", Path: l.path(n), Err: err}
}

// removeAll removes the last level with everything in it, through
// handles (clearDir), and says what stayed when it could not: the level
// is not the directory storbench made (moved says where that directory
// is now and what it holds, "" when not known), or entries could not be
// removed (counted).
func (l levels) removeAll(moved func() (where string, count *int64)) *Leftover {
	n := len(l.names)
	p := l.path(n)
	fd, err := l.open()
	if err != nil {
		var no *NotOursError
		switch {
		case errors.Is(err, unix.ENOENT):
			return nil
		case errors.As(err, &no):
			lo := Leftover{What: "files and directories", Where: p, Reason: "cleanup: " + no.Error() + ": nothing was removed through it"}
			if w, n := moved(); w != "" && w != p {
				lo.Where, lo.Count = w, n
				lo.Reason += "; the workspace storbench made was moved here"
			}
			return &lo
		}
		return &Leftover{What: "files and directories", Where: p, Reason: "cleanup: " + unwrapPath(err).Error()}
	}
	first := clearDir(fd)
	unix.Close(fd)
	err = l.removeEmptied()
	if err == nil {
		return nil
	}
	if first == nil {
		first = err
	}
	lo := Leftover{What: "files and directories", Where: p, Reason: "cleanup: " + unwrapPath(first).Error()}
	if c, ok := l.count(); ok {
		lo.Count = &c
	}
	return &lo
}

// rmdirTries bounds the tries of removeEmptied: a client of a distributed
// file system may see a directory whose entries it removed as not empty
// for a moment (ENOTEMPTY, or EEXIST), or a replica not yet in step
// (EIO, ESTALE); each try waits longer (10 ms, doubling: 150 ms in all).
const rmdirTries = 5

// removeEmptied removes the last level, which clearDir emptied: the
// directory under its name in its parent, checked again to be the one
// cleared.
func (l levels) removeEmptied() error {
	n := len(l.names)
	var err error
	for try := 0; try < rmdirTries; try++ {
		if try > 0 {
			time.Sleep(10 * time.Millisecond << (try - 1))
			if fd, oerr := l.open(); oerr == nil {
				clearDir(fd)
				unix.Close(fd)
			}
		}
		var parent int
		parent, err = l.upTo(n - 1).open()
		if err != nil {
			return err
		}
		err = unix.Unlinkat(parent, l.names[n-1], unix.AT_REMOVEDIR)
		unix.Close(parent)
		if err == nil || errors.Is(err, unix.ENOENT) {
			forget(l.path(n))
			return nil
		}
		if !isNotEmpty(err) && err != unix.EIO && err != unix.ESTALE {
			break
		}
	}
	return &os.PathError{Op: "remove", Path: l.path(n), Err: err}
}

// count counts the files and directories at and under the last level,
// through handles; ok is false when it cannot be opened.
func (l levels) count() (int64, bool) {
	fd, err := l.open()
	if err != nil {
		return 0, false
	}
	defer unix.Close(fd)
	return 1 + countAt(fd), true
}

func countAt(fd int) int64 {
	var n int64
	for _, name := range readNames(fd) {
		n++
		if sub, err := openDirAt(fd, name); err == nil {
			n += countAt(sub)
			unix.Close(sub)
		}
	}
	return n
}

// readNames lists the directory open at fd from its start ("." and ".."
// left out).
func readNames(fd int) []string {
	if _, err := unix.Seek(fd, 0, 0); err != nil {
		return nil
	}
	var names []string
	buf := make([]byte, 32<<10)
	for {
		n, err := unix.ReadDirent(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			return names
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
}

// removeWorkers is how many entries clearDir removes at once.
const removeWorkers = 8

// clearDir removes everything in the directory open at fd, relative to
// it: every entry is unlinked as what it is (a symbolic link as a link,
// never followed), a directory is opened without following a link,
// emptied the same way and removed. Entries go removeWorkers at once: the
// unlink of a file whose pages are in the page cache frees them, which is
// most of the time of removing what fio laid out (4 GiB in 64 files took
// 1 s one after the other, as long as rm -rf), and on a network file
// system each unlink is a round trip; several at once take half the time
// on 2 cores. A directory is read again until a pass removes nothing more
// (entries removed during a read may hide others). It returns the first
// error other than a vanished entry.
func clearDir(fd int) error {
	c := &clearer{jobs: make(chan unlinkJob, 1024)}
	var wg sync.WaitGroup
	for range removeWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range c.jobs {
				c.unlink(j)
			}
		}()
	}
	c.clear(fd)
	close(c.jobs)
	wg.Wait()
	return c.first
}

type clearer struct {
	jobs  chan unlinkJob
	mu    sync.Mutex
	first error
}

// unlinkJob is one entry of a directory being cleared.
type unlinkJob struct {
	dir  *dirPass
	name string
}

// dirPass is one pass over a directory: the entries that turned out to
// be directories, and how many of its entries went.
type dirPass struct {
	fd      int
	wg      sync.WaitGroup
	mu      sync.Mutex
	subdirs []string
	removed int
}

func (c *clearer) fail(err error) {
	c.mu.Lock()
	if c.first == nil {
		c.first = err
	}
	c.mu.Unlock()
}

func (c *clearer) unlink(j unlinkJob) {
	defer j.dir.wg.Done()
	err := unix.Unlinkat(j.dir.fd, j.name, 0)
	j.dir.mu.Lock()
	defer j.dir.mu.Unlock()
	switch {
	case err == nil:
		j.dir.removed++
	case err == unix.EISDIR || err == unix.EPERM:
		// A directory (Linux says EISDIR, POSIX EPERM), or a file the
		// system will not let go: clear decides on opening it.
		j.dir.subdirs = append(j.dir.subdirs, j.name)
	case err != unix.ENOENT:
		c.fail(&os.PathError{Op: "unlinkat", Path: j.name, Err: err})
	}
}

func (c *clearer) clear(fd int) {
	for pass := 0; pass < 4; pass++ {
		d := &dirPass{fd: fd}
		names := readNames(fd)
		if len(names) == 0 {
			return
		}
		for _, name := range names {
			d.wg.Add(1)
			c.jobs <- unlinkJob{d, name}
		}
		d.wg.Wait()
		for _, name := range d.subdirs {
			sub, err := openDirAt(fd, name)
			if err != nil {
				if err != unix.ENOENT {
					c.fail(&os.PathError{Op: "unlinkat", Path: name, Err: unix.EPERM})
				}
				continue
			}
			c.clear(sub)
			unix.Close(sub)
			switch err := unix.Unlinkat(fd, name, unix.AT_REMOVEDIR); {
			case err == nil:
				d.removed++
			case err != unix.ENOENT:
				c.fail(&os.PathError{Op: "unlinkat", Path: name, Err: err})
			}
		}
		if d.removed == 0 {
			return // what is left cannot be removed: the caller counts it
		}
	}
}

// known remembers, for this process, the identity of each level a
// workspace made or joined, by path: the removals that have no workspace
// at hand (the run's shared area, RemoveSharedEntries) check levels
// against it. Removing a level forgets it; past knownMax entries (runs
// that keep their files never remove theirs) it starts afresh, and a
// level forgotten is checked for links only.
var known = struct {
	sync.Mutex
	ids map[string]fileID
}{ids: map[string]fileID{}}

const knownMax = 4096

func remember(path string, id fileID) {
	known.Lock()
	defer known.Unlock()
	if len(known.ids) >= knownMax {
		known.ids = map[string]fileID{}
	}
	known.ids[path] = id
}

func forget(path string) {
	known.Lock()
	defer known.Unlock()
	delete(known.ids, path)
}

// levelsOf is the levels names below dir, with the identities this
// process knows of them.
func levelsOf(dir string, names ...string) levels {
	l := levels{dir: dir, names: names, ids: make([]fileID, len(names))}
	known.Lock()
	defer known.Unlock()
	for i := range names {
		l.ids[i] = known.ids[l.path(i+1)]
	}
	return l
}

// notMoved is removeAll's moved for a directory that has no handle held
// open: where it went is not known.
func notMoved() (string, *int64) { return "", nil }

// heldPlace is where the directory open at f is now (Linux's
// /proc/self/fd), "" when that cannot be told, and how many files and
// directories it holds, itself included.
func heldPlace(f *os.File) (string, *int64) {
	if f == nil {
		return "", nil
	}
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	if err != nil || !filepath.IsAbs(p) || strings.HasSuffix(p, " (deleted)") {
		return "", nil
	}
	n := 1 + countAt(int(f.Fd()))
	return p, &n
}

// sub is the levels of the entry name of the last level, with its
// identity when this process knows it.
func (l levels) sub(name string) levels {
	out := levels{dir: l.dir, names: append(l.names[:len(l.names):len(l.names)], name), ids: append(l.ids[:len(l.ids):len(l.ids)], fileID{})}
	known.Lock()
	out.ids[len(out.ids)-1] = known.ids[out.path(len(out.names))]
	known.Unlock()
	return out
}

// removeEntry removes the entry name of the last level as what it is: a
// file or a link is unlinked (a link never followed), a directory removed
// with everything in it (removeAll).
func (l levels) removeEntry(name string) *Leftover {
	p := filepath.Join(l.path(len(l.names)), name)
	fd, err := l.open()
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil
		}
		return &Leftover{What: "files and directories", Where: p, Reason: "cleanup: " + unwrapPath(err).Error()}
	}
	err = unix.Unlinkat(fd, name, 0)
	var st unix.Stat_t
	isDir := (err == unix.EISDIR || err == unix.EPERM) &&
		unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR
	unix.Close(fd)
	switch {
	case err == nil || err == unix.ENOENT:
		return nil
	case isDir:
		return l.sub(name).removeAll(notMoved)
	}
	one := int64(1)
	return &Leftover{What: "files and directories", Where: p, Count: &one, Reason: "cleanup: " + err.Error()}
}

// renameAside renames the last level, checked to be the directory
// storbench made, to aside in its own parent, and returns the levels
// under the new name; ok is false when it could not.
func (l levels) renameAside(aside string) (levels, bool) {
	fd, err := l.open()
	if err != nil {
		return l, false
	}
	unix.Close(fd)
	n := len(l.names)
	parent, err := l.upTo(n - 1).open()
	if err != nil {
		return l, false
	}
	defer unix.Close(parent)
	if unix.Renameat(parent, l.names[n-1], parent, aside) != nil {
		return l, false
	}
	forget(l.path(n))
	return l.renamed(aside), true
}
