package testutil

import (
	"fmt"
	mrand "math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
)

// FreeAddr returns a loopback address ("127.0.0.1:port") for a process
// the test starts to listen on: ClaimAddr's, claimed machine-wide for
// the life of tb. A port of the kernel's range for :0 listens, found free
// and closed, is the next :0 listen's or outgoing connection's of any
// process here: tests run in parallel, or test binaries run at once
// (make cluster-test beside make test), were given each other's ports
// ("bind: address already in use", or a controller that reached another
// test's agent).
func FreeAddr(tb testing.TB) string {
	tb.Helper()
	return ClaimAddr(tb)
}

// portLow is the first port of the kernel's range for :0 listens and
// outgoing connections (ip_local_port_range), 32768 where unreadable.
func portLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 32768
	}
	low, err := strconv.Atoi(f[0])
	if err != nil {
		return 32768
	}
	return low
}

// ClaimPort picks a loopback TCP port for a server a test starts later
// (one whose port cannot be 0: versitygw, an agent given its address),
// and claims it machine-wide until release. A port FreeAddr finds free
// (the kernel's pick for 127.0.0.1:0, closed again) is free only until
// the next listen on :0 or outgoing connection of any process here,
// which the kernel gives the same port: on the loaded test machine a
// server started there failed with "address already in use", or its
// readiness probe was answered by another test's server. ClaimPort's
// port is below the kernel's range (ip_local_port_range), which no :0
// listen and no connection takes, and free when picked; the claim (an
// abstract Unix socket, MachineLock's kind, gone with its process) keeps
// every other test binary's ClaimPort off it until release.
func ClaimPort() (port int, release func(), err error) {
	low := portLow()
	from := 20000
	if low-from < 1000 {
		from = 1024
	}
	if low-from < 100 {
		return 0, nil, fmt.Errorf("no ports below the kernel's range of outgoing connections' ports (from %d)", low)
	}
	for range 1000 {
		p := from + mrand.IntN(low-from)
		claim, err := net.Listen("unix", fmt.Sprintf("@storbench-port-%d", p))
		if err != nil {
			continue // another test's
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			claim.Close() // a server's of this machine
			continue
		}
		l.Close()
		return p, func() { claim.Close() }, nil
	}
	return 0, nil, fmt.Errorf("no free loopback port from %d to %d, of 1000 tried", from, low)
}

// ClaimAddr is ClaimPort's port as "127.0.0.1:port", claimed for the
// life of tb.
func ClaimAddr(tb testing.TB) string {
	tb.Helper()
	p, release, err := ClaimPort()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(release)
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(p))
}
