package s3test

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
)

// A versitygw Start picks the port of listens on a port below the
// kernel's range of ports for :0 listens and outgoing connections (a port
// of that range, found free and closed, could be another process's
// before versitygw bound it: it exited with "address already in use", or
// the readiness probe was answered by another test's server), claimed
// until Stop, and free for another claim after.
func TestStartPortOutsideTheEphemeralRange(t *testing.T) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		t.Skip("no /proc/sys/net/ipv4/ip_local_port_range")
	}
	low, _ := strconv.Atoi(strings.Fields(string(b))[0])
	s := StartT(t, Options{})
	_, port, _ := net.SplitHostPort(s.Endpoint)
	if p, _ := strconv.Atoi(port); p >= low {
		t.Fatalf("versitygw listens on %s: in the kernel's range of outgoing ports (from %d)", s.Endpoint, low)
	}
	claim := fmt.Sprintf("@storbench-port-%s", port)
	if l, err := net.Listen("unix", claim); err == nil {
		l.Close()
		t.Fatalf("%s: its port is not claimed while it runs", s.Endpoint)
	}
	s.Stop()
	l, err := net.Listen("unix", claim)
	if err != nil {
		t.Fatalf("%s: its port is still claimed after Stop: %v", s.Endpoint, err)
	}
	l.Close()
}
