package fio

import "syscall"

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

// freeSpace returns the bytes an unprivileged writer may still use on the
// file system holding dir, and the name of that file system when it is
// one several hosts share. ok is false when the file system does not tell
// (it reports no blocks, as some FUSE file systems do).
func freeSpace(dir string) (free int64, shared string, ok bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil || st.Blocks == 0 {
		return 0, "", false
	}
	return int64(st.Bavail) * int64(st.Bsize), sharedFSTypes[int64(st.Type)], true
}
