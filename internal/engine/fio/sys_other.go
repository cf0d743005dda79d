//go:build !linux

package fio

import "syscall"

// procAttr puts fio in a process group of its own (a stop goes to every
// job process it forks). Only Linux has a parent-death signal.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// freeSpace is not checked where statfs differs: the file system does not
// tell, as far as storbench knows.
func freeSpace(string) (int64, string, bool) { return 0, "", false }

// fsInfo is what statfs tells of a file system (Linux only).
type fsInfo struct {
	free             int64
	shared, id, name string
}

// fsOf does not tell where statfs differs.
func fsOf(string) (fsInfo, bool) { return fsInfo{}, false }

// blockSIGPIPE does nothing where there is no parent-death signal.
func blockSIGPIPE() (restore func()) { return func() {} }
