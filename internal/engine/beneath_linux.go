//go:build linux

package engine

import (
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// noOpenat2 is set once openat2 turned out not to be there (Linux before
// 5.6, or a seccomp filter of a container runtime that does not know it).
var noOpenat2 atomic.Bool

// openBeneath opens name in the directory open at parent with openat2,
// resolving nothing outside parent and no symbolic link on the way
// (RESOLVE_BENEATH, RESOLVE_NO_SYMLINKS, RESOLVE_NO_MAGICLINKS): the
// kernel's guarantee, whatever name holds. It returns errNoOpenat2 where
// the call is not available.
func openBeneath(parent int, name string, flags int) (int, error) {
	if noOpenat2.Load() {
		return -1, errNoOpenat2
	}
	fd, err := unix.Openat2(parent, name, &unix.OpenHow{
		Flags:   uint64(flags),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	switch err {
	case unix.ENOSYS, unix.EPERM, unix.E2BIG:
		// EPERM: what older container runtimes' seccomp filters answer
		// for a call they do not know; E2BIG: a kernel that knows
		// openat2 but not this struct.
		noOpenat2.Store(true)
		return -1, errNoOpenat2
	}
	return fd, err
}
