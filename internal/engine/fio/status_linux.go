package fio

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

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

// statusAsker returns ready and ask for askStatus on fio's process pid,
// and close, which frees what they hold. The signal goes through a pidfd
// taken now, while fio runs: once fio is gone it reaches no other
// process that has its pid since.
func statusAsker(pid int) (ready func() bool, ask func() error, close func(), err error) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return nil, nil, nil, err
	}
	caught := false
	ready = func() bool {
		caught = caught || catchesUSR1(pid)
		return caught
	}
	ask = func() error { return unix.PidfdSendSignal(fd, unix.SIGUSR1, nil, 0) }
	return ready, ask, func() { unix.Close(fd) }, nil
}

// catchesUSR1 reports whether process pid has a handler for SIGUSR1
// (/proc/PID/status, SigCgt: a hexadecimal mask, signal n at bit n-1).
func catchesUSR1(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false
	}
	_, rest, ok := bytes.Cut(b, []byte("\nSigCgt:"))
	if !ok {
		return false
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	mask, err := strconv.ParseUint(string(bytes.TrimSpace(line)), 16, 64)
	return err == nil && mask&(1<<(unix.SIGUSR1-1)) != 0
}

// statusArgs are none: storbench asks for fio's status (askStatus).
var statusArgs []string
