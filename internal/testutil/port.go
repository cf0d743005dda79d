package testutil

import (
	"net"
	"sync"
	"testing"
)

// handedOut holds the loopback addresses FreeAddr gave in this process.
var handedOut = struct {
	sync.Mutex
	addrs map[string]bool
}{addrs: map[string]bool{}}

// FreeAddr returns a loopback address ("127.0.0.1:port") free now, for a
// process the test starts to listen on, and never the same twice in one
// test binary. The port is closed before FreeAddr returns, and this
// machine's kernel gives a port just closed to the next listen on :0
// again: tests run in parallel were given each other's ports ("bind:
// address already in use", or a controller that reached another test's
// agent).
func FreeAddr(tb testing.TB) string {
	tb.Helper()
	var held []net.Listener
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	for range 1000 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			tb.Fatal(err)
		}
		held = append(held, l)
		addr := l.Addr().String()
		handedOut.Lock()
		fresh := !handedOut.addrs[addr]
		handedOut.addrs[addr] = true
		handedOut.Unlock()
		if fresh {
			return addr
		}
	}
	tb.Fatal("no loopback port this test binary has not handed out already, of 1000 tried")
	return ""
}
