package fio

import (
	"io"
	"syscall"

	"golang.org/x/sys/unix"
)

// How fio's status reaches storbench while a phase runs. fio prints its
// status every second (--status-interval=1) from its status thread, which
// holds fio's statistics lock (stat_sem) while it collects every running
// job's figures, formats them and writes them to storbench's pipe. A job
// that ends must take that lock (fio 3.33 backend.c thread_main: a trylock
// every millisecond, 5,000 times) and, not getting it, fails with "fio
// seems to be stuck grabbing stat_sem, forcibly exiting" (err=35), and
// the phase with it. On a starved machine storbench reads late; a status
// that did not fit in the pipe's default 64 KiB blocked the write, and the
// lock with it, until storbench read again. storbench therefore gives the
// pipe 1 MiB (growPipe): a status is written at once, however late it is
// read (TestStarvedReaderLeavesFiosLockFree).
//
// storbench does not ask for the status with SIGUSR1 instead: fio 3.33
// frees its helper thread's data at exit without clearing the pointer its
// SIGUSR1 handler writes through, so a signal near fio's end crashed fio
// (exit 139 in TestReadFromNeighbourFiles, under load).

// statusPipeSize is the size storbench asks for fio's standard output
// pipe: fio writes its status while it holds its statistics lock, so a
// status that fits is written at once, however late storbench reads it.
const statusPipeSize = 1 << 20

// growPipe asks the kernel for a larger pipe behind r (fio's standard
// output); a refusal (a lower pipe-max-size) leaves the default.
func growPipe(r io.Reader) {
	sc, ok := r.(syscall.Conn)
	if !ok {
		return
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return
	}
	_ = raw.Control(func(fd uintptr) { _, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, statusPipeSize) })
}
