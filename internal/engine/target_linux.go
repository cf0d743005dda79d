package engine

import (
	"fmt"
	"syscall"
)

// kernelFS names, by their statfs magic, the kernel's own file systems:
// views of the kernel (processes, devices, settings), not storage. A
// benchmark there fails only once it writes - /proc refuses mkdir with
// ENOENT, sysfs with EPERM - or worse, writes a setting.
var kernelFS = map[int64]string{
	0x9fa0:     "proc",
	0x62656572: "sysfs",
	0x27e0eb:   "cgroup",
	0x63677270: "cgroup2",
	0x64626720: "debugfs",
	0x74726163: "tracefs",
	0x73636673: "securityfs",
	0xcafe4a11: "bpf",
	0x62656570: "configfs",
	0x6165676c: "pstore",
	0xde5e81e4: "efivarfs",
	0x1cd1:     "devpts",
	0x19800202: "mqueue",
	0x42494e4d: "binfmt_misc",
	0x65735543: "fusectl",
	0x6e736673: "nsfs",
	0xf97cff8c: "selinuxfs",
	0x958458f6: "hugetlbfs",
}

// checkKernelFS refuses dir when it is on one of the kernel's own file
// systems (kernelFS), as bad input: before any load, and on an agent as
// ErrUnsupported, so the run exits 2 there too.
func checkKernelFS(dir string) error {
	var st syscall.Statfs_t
	if syscall.Statfs(dir, &st) != nil {
		return nil // CheckDir's own checks say what is wrong
	}
	if name, ok := kernelFS[int64(st.Type)]; ok {
		return Unsupported(fmt.Sprintf("target directory %s is on %s, the kernel's own file system, not storage: give a directory on the file system to measure", dir, name))
	}
	return nil
}
