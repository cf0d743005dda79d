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
