package ceph

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The monitor's and the gateway's ports are two, and neither is in the
// kernel's range of ports for outgoing connections: the gateway binds
// its port 20-40 s after the port was picked, and a port picked there
// (127.0.0.1:0) was taken in between ("failed to bind address
// 127.0.0.1:38681: Address already in use", the HTTP probe answered by
// a Ceph daemon), failing every radosgw test of a make cluster-test run;
// and they are claimed machine-wide (testutil.ClaimPort) until the
// teardown: another test binary's server could pick them between the
// pick and the bind.
func TestPortsOutsideTheEphemeralRange(t *testing.T) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		t.Skip("no /proc/sys/net/ipv4/ip_local_port_range")
	}
	f := strings.Fields(string(b))
	lo, _ := strconv.Atoi(f[0])
	hi, _ := strconv.Atoi(f[1])
	for range 50 {
		c := &Cluster{}
		ports, err := c.claimPorts(2)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ports {
			// Another test binary's claim (testutil.ClaimPort) is this
			// listen: it must not get the port while the cluster runs.
			if l, err := net.Listen("unix", fmt.Sprintf("@storbench-port-%d", p)); err == nil {
				l.Close()
				t.Fatalf("port %d: another test binary could claim it too", p)
			}
		}
		for _, release := range c.releases {
			defer release()
		}
		if len(ports) != 2 || ports[0] == ports[1] {
			t.Fatalf("ports %v, want two distinct", ports)
		}
		for _, p := range ports {
			if p >= lo && p <= hi {
				t.Fatalf("port %d is in the range of outgoing connections' ports (%d-%d)", p, lo, hi)
			}
		}
	}
}
