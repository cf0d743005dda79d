package dfs

import (
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
)

// An agent on loopback gets a port below the kernel's range of ports for
// :0 listens and outgoing connections: a port of that range, found free
// and closed, could be another process's before the agent bound it
// ("address already in use", or a controller that reached another
// test's agent).
func TestLoopbackAgentPortOutsideTheEphemeralRange(t *testing.T) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		t.Skip("no /proc/sys/net/ipv4/ip_local_port_range")
	}
	low, _ := strconv.Atoi(strings.Fields(string(b))[0])
	c := &Cluster{t: t}
	for i := range 20 {
		addr, wrap := c.agentAddr(i)
		_, port, err := net.SplitHostPort(addr)
		if err != nil || wrap != nil {
			t.Fatalf("agent %d: address %q (%v), wrapped in %v", i, addr, err, wrap)
		}
		if p, _ := strconv.Atoi(port); p >= low {
			t.Fatalf("agent %d listens on %s: in the kernel's range of outgoing ports (from %d)", i, addr, low)
		}
	}
}
