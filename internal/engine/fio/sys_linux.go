package fio

import (
	"syscall"
	"unsafe"
)

// procAttr puts fio in a process group of its own (a stop goes to every
// job process it forks) and has the kernel send it SIGTERM when the
// thread that started it ends: when storbench dies, even by SIGKILL, with
// nothing left to stop it. fio turns SIGTERM into stopping its jobs, and
// the job processes exit with it. Run keeps the starting thread for as
// long as fio runs.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}

// sharedFSTypes are file systems (statfs f_type) that several hosts mount
// as one, so every host's files count against one free space.
var sharedFSTypes = map[int64]string{
	0x6969:     "NFS",
	0xFF534D42: "CIFS",
	0xFE534D42: "SMB",
	0x0BD00BD0: "Lustre",
	0x47504653: "GPFS",
	0x00C36400: "CephFS",
	0x19830326: "BeeGFS",
}

// statfs is syscall.Statfs; tests of file systems this machine cannot
// mount (a network one several hosts share) replace it.
var statfs = syscall.Statfs

// freeSpace returns the bytes an unprivileged writer may still use on the
// file system holding dir, and the name of that file system when it is
// one several hosts share. ok is false when the file system does not tell
// (it reports no blocks, as some FUSE file systems do).
func freeSpace(dir string) (free int64, shared string, ok bool) {
	var st syscall.Statfs_t
	if err := statfs(dir, &st); err != nil || st.Blocks == 0 {
		return 0, "", false
	}
	return int64(st.Bavail) * int64(st.Bsize), sharedFSTypes[int64(st.Type)], true
}

// blockSIGPIPE blocks SIGPIPE on the calling thread, which must be locked
// to its goroutine, until restore is called. A process started meanwhile
// keeps the signal blocked across exec: fio then sees a write to the pipe
// of a storbench that died fail with EPIPE instead of being killed by the
// signal, which fio handles no earlier than the parent-death SIGTERM and
// which would end fio's main process with its job processes left running.
func blockSIGPIPE() (restore func()) {
	const sigBlock, sigSetmask = 0, 2
	set := uint64(1) << (syscall.SIGPIPE - 1)
	var old uint64
	if _, _, e := syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, sigBlock, uintptr(unsafe.Pointer(&set)), uintptr(unsafe.Pointer(&old)), 8, 0, 0); e != 0 {
		return func() {}
	}
	return func() {
		_, _, _ = syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, sigSetmask, uintptr(unsafe.Pointer(&old)), 0, 8, 0, 0)
	}
}
