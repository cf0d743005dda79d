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

// blockSIGPIPE does nothing where there is no parent-death signal.
func blockSIGPIPE() (restore func()) { return func() {} }
