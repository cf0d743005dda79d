package md

import (
	"syscall"
	"time"
)

// rmdirAt removes the directory path names below dfd. It is a variable only
// so that a test can put a fake in its place: no local file system answers
// a removal with a stale ENOTEMPTY or EIO on demand, as a distributed one's
// client does.
var rmdirAt = func(raw bool, dfd int, path *byte) syscall.Errno {
	return unlinkat(raw, dfd, path, atRemoveDir)
}

// rmdirTries bounds the tries of one directory's removal: with the delays
// of rmdirDelay, 10 tries take about 1.3 s.
const rmdirTries = 10

// rmdirDelay is the wait before retry n (from 0): 10 ms, doubling, at most
// 250 ms.
func rmdirDelay(n int) time.Duration {
	return min(10*time.Millisecond<<n, 250*time.Millisecond)
}

// rmdirRetries says whether a removal that failed with e may succeed when
// tried again. On a distributed file system (GlusterFS through FUSE) a
// directory whose entries other clients removed can still be non-empty to
// this client for a moment (ENOTEMPTY, or EEXIST, which POSIX allows for
// it), and a replica not yet in step answers EIO or ESTALE.
func rmdirRetries(e syscall.Errno) bool {
	switch e {
	case syscall.ENOTEMPTY, syscall.EEXIST, syscall.EIO, syscall.ESTALE:
		return true
	}
	return false
}

// removeDir retries the removal of the directory path (NUL-terminated,
// below dfd: a tree directory, or an item of dir-remove) that a first try answered with e, a bounded number of times:
// before each retry it waits, and when the directory was not empty it reads
// the directory again and removes the run's entries still listed (entries
// another client removed are gone already: ENOENT, ignored). It gives up
// when the run stops. It returns the last try's error and the number of
// tries, the first included. Only an error path: it allocates.
func (w *worker) removeDir(dfd int, path *byte, e syscall.Errno) (syscall.Errno, int) {
	tries := 1
	for ; tries < rmdirTries && rmdirRetries(e) && !w.r.stop.Load(); tries++ {
		time.Sleep(rmdirDelay(tries - 1))
		if e == syscall.ENOTEMPTY || e == syscall.EEXIST {
			clearRunEntries(dfd, path)
		}
		e = rmdirAt(w.raw, dfd, path)
	}
	return e, tries
}

// runEntry says whether a name in a tree directory is one md makes: a
// tree directory (t.), an item (d., f., r.) or a directory set aside by
// the renames (x.d.). Anything else is not the run's and is left alone.
func runEntry(name string) bool {
	for _, p := range []string{"t.", "d.", "f.", "r.", "x.d."} {
		if len(name) > len(p) && name[:len(p)] == p {
			return true
		}
	}
	return false
}

// clearRunEntries removes the run's entries that the directory path
// (NUL-terminated, below dfd) still lists: files, and directories that are
// empty. Failures are left to the removal that follows to report.
func clearRunEntries(dfd int, path *byte) {
	fd, e := openat(false, dfd, path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if e != 0 {
		return
	}
	defer closeFd(false, fd)
	var names []string
	buf := make([]byte, 16<<10)
	for {
		n, err := syscall.ReadDirent(fd, buf)
		if err != nil || n <= 0 {
			break
		}
		_, _, names = syscall.ParseDirent(buf[:n], -1, names)
	}
	for _, name := range names {
		if !runEntry(name) {
			continue
		}
		c := append([]byte(name), 0)
		if e := unlinkat(false, fd, &c[0], 0); e == syscall.EISDIR || e == syscall.EPERM {
			unlinkat(false, fd, &c[0], atRemoveDir)
		}
	}
}
