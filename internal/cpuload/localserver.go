package cpuload

import (
	"bufio"
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// A local server is the storage under test on this same host: a process
// this one talks to over loopback (a versitygw on 127.0.0.1, the S3
// endpoint make demo starts) that is not this process or one it started.
// Its CPU time is the storage's work, not other work that starves the
// client: it is counted apart.

// tcpConn is one line of /proc/net/tcp or tcp6: addresses as the kernel
// prints them (hex address, ':', hex port).
type tcpConn struct {
	local, remote string
	state         string
}

// tcpStateEstablished and tcpStateListen are /proc/net/tcp's st column.
const (
	tcpStateEstablished = "01"
	tcpStateListen      = "0A"
)

// tcpTable reads this network namespace's TCP sockets by inode.
func tcpTable() map[string]tcpConn {
	out := map[string]tcpConn{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		fh, err := os.Open(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 64<<10), 64<<10)
		for sc.Scan() {
			// sl local rem st queues tr retrnsmt uid timeout inode
			f := bytes.Fields(sc.Bytes())
			if len(f) < 10 || string(f[9]) == "0" {
				continue
			}
			out[string(f[9])] = tcpConn{local: string(f[1]), remote: string(f[2]), state: string(f[3])}
		}
		fh.Close()
	}
	return out
}

// loopback says a /proc/net/tcp address is on loopback: 127.0.0.0/8,
// ::1, or 127.0.0.0/8 mapped into IPv6.
func loopback(addr string) bool {
	a, _, _ := strings.Cut(addr, ":")
	switch len(a) {
	case 8: // the address's bytes in the kernel's order: 127.x.y.z ends 7F
		return strings.HasSuffix(a, "7F")
	case 32:
		return a == "00000000000000000000000001000000" ||
			(strings.HasPrefix(a, "0000000000000000FFFF0000") && strings.HasSuffix(a, "7F"))
	}
	return false
}

func port(addr string) string {
	_, p, _ := strings.Cut(addr, ":")
	return p
}

// socketInodes are the inodes of pid's open sockets.
func socketInodes(pid string) []string {
	dir := filepath.Join("/proc", pid, "fd")
	es, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range es {
		l, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err == nil && strings.HasPrefix(l, "socket:[") && strings.HasSuffix(l, "]") {
			out = append(out, l[len("socket:["):len(l)-1])
		}
	}
	return out
}

// localServers finds the processes at the far end of this process's
// TCP connections to a server on loopback, leaving out this process and
// those it started (ours already: mine says which, asked only when there
// is such a connection) and connections to this process's own listening
// ports (a controller on the same host talking to this agent is not a
// server of its). It reads every process's open files, once: called a
// few times a phase at most. A process with no such connection (an agent
// that runs fio or md, whose controller dials it) reads no table: the
// kernel's /proc/net/tcp walks every bucket of the TCP hash table, 5-30
// ms a reading on a host whose table has 262,144.
func localServers(mine func() func(pid int) bool) []int {
	if !dialsLoopback() {
		return nil
	}
	socks := tcpTable()
	own := socketInodes("self")
	listening := map[string]bool{}
	for _, ino := range own {
		if c, ok := socks[ino]; ok && c.state == tcpStateListen {
			listening[port(c.local)] = true
		}
	}
	// The far ends: the sockets whose local address is ours' remote.
	far := map[string]bool{}
	for _, ino := range own {
		c, ok := socks[ino]
		if ok && c.state == tcpStateEstablished && loopback(c.remote) && !listening[port(c.local)] {
			far[c.remote+" "+c.local] = true
		}
	}
	if len(far) == 0 {
		return nil
	}
	peers := map[string]bool{}
	for ino, c := range socks {
		if far[c.local+" "+c.remote] {
			peers[ino] = true
		}
	}
	procs, _ := filepath.Glob("/proc/[0-9]*")
	ours := mine()
	var out []int
	for _, p := range procs {
		pid, err := strconv.Atoi(filepath.Base(p))
		if err != nil || ours(pid) {
			continue
		}
		for _, ino := range socketInodes(filepath.Base(p)) {
			if peers[ino] {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// dialsLoopback says whether this process may hold a connection that
// localServers looks for: a connected TCP socket whose peer is on
// loopback and whose own port is not one this process listens on. It
// asks the kernel about this process's own sockets alone (a file
// descriptor that is not a socket answers ENOTSOCK), so it can say yes
// where the table would find nothing (a connection still being made or
// closing), never no where it would find one.
func dialsLoopback() bool {
	d, err := os.Open("/proc/self/fd")
	if err != nil {
		return true // cannot tell: the table says
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return true
	}
	listening := map[int]bool{}
	var dialled []int // the local ports of connections to loopback
	for _, name := range names {
		fd, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if t, err := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_TYPE); err != nil || t != syscall.SOCK_STREAM {
			continue // not a socket, or not TCP's kind
		}
		local, err := syscall.Getsockname(fd)
		if err != nil {
			continue
		}
		lport, ok := inetPort(local)
		if !ok {
			continue // a Unix socket
		}
		if l, err := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_ACCEPTCONN); err == nil && l == 1 {
			listening[lport] = true
			continue
		}
		if peer, err := syscall.Getpeername(fd); err == nil && loopbackAddr(peer) {
			dialled = append(dialled, lport)
		}
	}
	for _, p := range dialled {
		if !listening[p] {
			return true
		}
	}
	return false
}

// inetPort is an IPv4 or IPv6 socket address's port.
func inetPort(sa syscall.Sockaddr) (int, bool) {
	switch a := sa.(type) {
	case *syscall.SockaddrInet4:
		return a.Port, true
	case *syscall.SockaddrInet6:
		return a.Port, true
	}
	return 0, false
}

// loopbackAddr says a socket address is on loopback: 127.0.0.0/8, ::1,
// or 127.0.0.0/8 mapped into IPv6.
func loopbackAddr(sa syscall.Sockaddr) bool {
	switch a := sa.(type) {
	case *syscall.SockaddrInet4:
		return net.IP(a.Addr[:]).IsLoopback()
	case *syscall.SockaddrInet6:
		return net.IP(a.Addr[:]).IsLoopback()
	}
	return false
}
