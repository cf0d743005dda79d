//go:build linux && (amd64 || arm64)

package md

import (
	"syscall"
	"unsafe"
)

// The hot loop calls the *at system calls directly with a NUL-terminated name
// in a buffer the worker reuses: the os and x/sys/unix wrappers copy every
// path into a new string, which costs an allocation per operation.
//
// With raw set, a call skips the Go scheduler's bookkeeping around system
// calls (syscall.RawSyscall): about 100 ns less per call on this kind of VM,
// which is 7% of a tmpfs stat. The goroutine then keeps its P while in the
// kernel, and the runtime cannot take it back: a raw call that blocks holds
// its P and stops every stop-the-world (a garbage collection waits for it,
// and with it the whole process). So raw calls are used only where a call
// cannot block: on a file system held in memory (inMemoryFS), with no more
// workers than Ps, and until calls turn out slow (see worker.slowCall).
// Everywhere else - disks, NFS, Lustre, FUSE - a create can wait for a
// device or a server for as long as they take.

const (
	atRemoveDir = 0x200 // AT_REMOVEDIR
	atFdcwd     = -100  // AT_FDCWD
	supported   = true
)

func mkdirat(raw bool, dfd int, path *byte, mode uint32) syscall.Errno {
	var e syscall.Errno
	if raw {
		_, _, e = syscall.RawSyscall(syscall.SYS_MKDIRAT, uintptr(dfd), uintptr(unsafe.Pointer(path)), uintptr(mode))
	} else {
		_, _, e = syscall.Syscall(syscall.SYS_MKDIRAT, uintptr(dfd), uintptr(unsafe.Pointer(path)), uintptr(mode))
	}
	return e
}

func openat(raw bool, dfd int, path *byte, flags int, mode uint32) (int, syscall.Errno) {
	var fd uintptr
	var e syscall.Errno
	if raw {
		fd, _, e = syscall.RawSyscall6(syscall.SYS_OPENAT, uintptr(dfd), uintptr(unsafe.Pointer(path)), uintptr(flags), uintptr(mode), 0, 0)
	} else {
		fd, _, e = syscall.Syscall6(syscall.SYS_OPENAT, uintptr(dfd), uintptr(unsafe.Pointer(path)), uintptr(flags), uintptr(mode), 0, 0)
	}
	return int(fd), e
}

func closeFd(raw bool, fd int) syscall.Errno {
	var e syscall.Errno
	if raw {
		_, _, e = syscall.RawSyscall(syscall.SYS_CLOSE, uintptr(fd), 0, 0)
	} else {
		_, _, e = syscall.Syscall(syscall.SYS_CLOSE, uintptr(fd), 0, 0)
	}
	return e
}

func fstatat(raw bool, dfd int, path *byte, st *syscall.Stat_t) syscall.Errno {
	var e syscall.Errno
	if raw {
		_, _, e = syscall.RawSyscall6(sysFstatat, uintptr(dfd), uintptr(unsafe.Pointer(path)), uintptr(unsafe.Pointer(st)), 0, 0, 0)
	} else {
		_, _, e = syscall.Syscall6(sysFstatat, uintptr(dfd), uintptr(unsafe.Pointer(path)), uintptr(unsafe.Pointer(st)), 0, 0, 0)
	}
	return e
}

func unlinkat(raw bool, dfd int, path *byte, flags int) syscall.Errno {
	var e syscall.Errno
	if raw {
		_, _, e = syscall.RawSyscall(syscall.SYS_UNLINKAT, uintptr(dfd), uintptr(unsafe.Pointer(path)), uintptr(flags))
	} else {
		_, _, e = syscall.Syscall(syscall.SYS_UNLINKAT, uintptr(dfd), uintptr(unsafe.Pointer(path)), uintptr(flags))
	}
	return e
}

func renameat(raw bool, olddfd int, oldpath *byte, newdfd int, newpath *byte) syscall.Errno {
	var e syscall.Errno
	if raw {
		_, _, e = syscall.RawSyscall6(syscall.SYS_RENAMEAT, uintptr(olddfd), uintptr(unsafe.Pointer(oldpath)), uintptr(newdfd), uintptr(unsafe.Pointer(newpath)), 0, 0)
	} else {
		_, _, e = syscall.Syscall6(syscall.SYS_RENAMEAT, uintptr(olddfd), uintptr(unsafe.Pointer(oldpath)), uintptr(newdfd), uintptr(unsafe.Pointer(newpath)), 0, 0)
	}
	return e
}

// inMemoryFS says whether the file system holding path keeps everything
// in memory (tmpfs, ramfs): its metadata calls never wait for a device or
// a server.
func inMemoryFS(path string) bool {
	var st syscall.Statfs_t
	if syscall.Statfs(path, &st) != nil {
		return false
	}
	switch uint32(st.Type) {
	case 0x01021994, // TMPFS_MAGIC
		0x858458f6: // RAMFS_MAGIC
		return true
	}
	return false
}

// writeFd and readFd move file data, which may take long: always scheduled.
func writeFd(fd int, b []byte) (int, syscall.Errno) {
	n, _, e := syscall.Syscall(syscall.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
	return int(n), e
}

func readFd(fd int, b []byte) (int, syscall.Errno) {
	n, _, e := syscall.Syscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
	return int(n), e
}

// getdents reads directory entries (getdents64(2)) into b: always
// scheduled, as a large directory may take long to read.
func getdents(fd int, b []byte) (int, syscall.Errno) {
	n, _, e := syscall.Syscall(syscall.SYS_GETDENTS64, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
	return int(n), e
}

// syncAll flushes every file system of the host (sync(2)), as mdtest's -Y
// calls sync after each phase.
func syncAll() { syscall.Sync() }

// fsyncFd flushes one file (fsync(2)), as mdtest's -y does after writing
// each file: it may take long, so it is always scheduled.
func fsyncFd(fd int) syscall.Errno {
	_, _, e := syscall.Syscall(syscall.SYS_FSYNC, uintptr(fd), 0, 0)
	return e
}

// threadCPU returns the CPU time (ns) the calling thread has used; a worker is
// locked to its thread, so this is the worker's own.
func threadCPU() int64 {
	var ts syscall.Timespec
	const clockThreadCPUTimeID = 3
	if _, _, e := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0
	}
	return ts.Nano()
}

// schedYield gives the CPU to another runnable thread, if there is one.
func schedYield() { syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
