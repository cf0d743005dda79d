package testutil

import (
	"fmt"
	"net"
	"strconv"
	"testing"
)

// A port ClaimPort gives is below the kernel's range of ports for :0
// listens and outgoing connections (a port of that range, picked free
// and closed, was another process's before the test's server bound it),
// and no other claim, of this test binary or another, gets it until it
// is released.
func TestClaimPortOutsideTheEphemeralRange(t *testing.T) {
	low := portLow()
	seen := map[int]bool{}
	for range 50 {
		p, release, err := ClaimPort()
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		if p >= low || seen[p] {
			t.Fatalf("port %d: in the kernel's range (from %d), or claimed twice (%v)", p, low, seen[p])
		}
		seen[p] = true
		// Another test binary's claim is this listen.
		if l, err := net.Listen("unix", fmt.Sprintf("@storbench-port-%d", p)); err == nil {
			l.Close()
			t.Fatalf("port %d: another process could claim it too", p)
		}
	}
	addr := ClaimAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	if p, _ := strconv.Atoi(port); p >= low || seen[p] {
		t.Fatalf("ClaimAddr gave %s: in the kernel's range (from %d), or claimed already", addr, low)
	}
}

// A released claim is free for another.
func TestClaimPortRelease(t *testing.T) {
	p, release, err := ClaimPort()
	if err != nil {
		t.Fatal(err)
	}
	release()
	l, err := net.Listen("unix", fmt.Sprintf("@storbench-port-%d", p))
	if err != nil {
		t.Fatalf("port %d still claimed after release: %v", p, err)
	}
	l.Close()
}

// FreeAddr's port is claimed as ClaimPort's is, below the kernel's range
// of ports for :0 listens and outgoing connections: a port of that range,
// free when found, was another process's before the test's server bound
// it.
func TestFreeAddrIsClaimed(t *testing.T) {
	low := portLow()
	for range 20 {
		_, port, err := net.SplitHostPort(FreeAddr(t))
		if err != nil {
			t.Fatal(err)
		}
		p, _ := strconv.Atoi(port)
		if p >= low {
			t.Fatalf("port %d is in the kernel's range (from %d)", p, low)
		}
		if l, err := net.Listen("unix", fmt.Sprintf("@storbench-port-%d", p)); err == nil {
			l.Close()
			t.Fatalf("port %d: another test binary could claim it too", p)
		}
	}
}
