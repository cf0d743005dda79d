//go:build linux && (amd64 || arm64)

package s3

import (
	"io"
	"net"
	"syscall"
	"unsafe"
)

// connIO reads and writes a lean connection with raw system calls through
// the netpoller (syscall.RawConn): the socket is non-blocking, so a read or
// writev returns at once, and RawSyscall skips the runtime's entersyscall,
// which on a client that waits on the network most of the time wakes the
// runtime's sysmon thread and sets it polling every 20 us. That cycle cost
// about a fifth of a 4 KiB GET's CPU. Waiting is the netpoller's, as for
// net.Conn, so deadlines (cancellation) work the same.
type connIO struct {
	rc     syscall.RawConn
	p      []byte // read destination
	n      int
	err    error
	iov    []syscall.Iovec // writev: what is left to write
	iovBuf []syscall.Iovec // iov's array, kept whole

	readFn, writeFn func(uintptr) bool // bound once: no closure per call
}

func newConnIO(c net.Conn) (*connIO, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil, errBadResponse
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	cio := &connIO{rc: rc, iovBuf: make([]syscall.Iovec, 0, 8)}
	cio.readFn, cio.writeFn = cio.doRead, cio.doWrite
	return cio, nil
}

// Read reads into p what the socket holds, waiting for data if none.
func (c *connIO) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.p, c.n, c.err = p, 0, nil
	err := c.rc.Read(c.readFn)
	c.p = nil
	if err != nil {
		return 0, err
	}
	if c.err != nil {
		return 0, c.err
	}
	if c.n == 0 {
		return 0, io.EOF
	}
	return c.n, nil
}

func (c *connIO) doRead(fd uintptr) bool {
	for {
		n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&c.p[0])), uintptr(len(c.p)))
		switch e {
		case 0:
			c.n = int(n)
			return true
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false // wait for the netpoller
		default:
			c.err = e
			return true
		}
	}
}

// writev writes every buffer of bufs, in order, waiting when the socket
// buffer is full.
func (c *connIO) writev(bufs [][]byte) error {
	iov := c.iovBuf[:0]
	for _, b := range bufs {
		if len(b) == 0 {
			continue
		}
		v := syscall.Iovec{Base: &b[0]}
		v.SetLen(len(b))
		iov = append(iov, v)
	}
	c.iovBuf, c.iov, c.err = iov, iov, nil
	err := c.rc.Write(c.writeFn)
	clear(iov) // drop the pointers into the buffers
	c.iov = nil
	if err != nil {
		return err
	}
	return c.err
}

func (c *connIO) doWrite(fd uintptr) bool {
	for len(c.iov) > 0 {
		cnt := min(len(c.iov), 1024) // IOV_MAX
		n, _, e := syscall.RawSyscall(syscall.SYS_WRITEV, fd, uintptr(unsafe.Pointer(&c.iov[0])), uintptr(cnt))
		switch e {
		case 0:
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false // socket buffer full: wait for the netpoller
		default:
			c.err = e
			return true
		}
		c.advance(int(n))
	}
	return true
}

// advance drops the first n bytes of c.iov.
func (c *connIO) advance(n int) {
	for n > 0 && len(c.iov) > 0 {
		l := int(c.iov[0].Len)
		if n < l {
			c.iov[0].Base = (*byte)(unsafe.Add(unsafe.Pointer(c.iov[0].Base), n))
			c.iov[0].SetLen(l - n)
			return
		}
		n -= l
		c.iov = c.iov[1:]
	}
}
