//go:build !linux

package fio

import "syscall"

// procAttr puts fio in a process group of its own (a stop goes to every
// job process it forks). Only Linux has a parent-death signal.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
