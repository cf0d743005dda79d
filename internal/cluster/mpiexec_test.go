package cluster

import (
	"slices"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/hosts"
)

// mpiexec is told the hosts in the order given, each with its slots (one
// without), and the agents are in rank order, named after their host
// (host-i on a host with several slots), at the port each rank announced:
// ranks follow the hosts as given, never sorted.
func TestMPIExecRanksFollowTheHosts(t *testing.T) {
	l := &MPIExecLauncher{Hosts: []hosts.Entry{{Host: "n9", Slots: 2}, {Host: "n1"}, {Host: "n5", Slots: 3}}}
	if l.Planned() != 6 {
		t.Fatalf("planned %d agents, want 6", l.Planned())
	}
	args := strings.Join(l.args("/opt/storbench"), " ")
	if args != "-hosts n9:2,n1:1,n5:3 -n 6 /opt/storbench agent --launched-by mpiexec" {
		t.Errorf("mpiexec %s", args)
	}
	got := map[int]mpiAnnouncement{}
	for r := range 6 {
		got[r] = mpiAnnouncement{rank: r, port: 9000 + r}
	}
	var names, addrs []string
	for _, a := range l.agents(got, "tok") {
		names, addrs = append(names, a.Host), append(addrs, a.Addr)
	}
	if want := []string{"n9-0", "n9-1", "n1", "n5-0", "n5-1", "n5-2"}; !slices.Equal(names, want) {
		t.Errorf("names %v, want %v", names, want)
	}
	if want := []string{"n9:9000", "n9:9001", "n1:9002", "n5:9003", "n5:9004", "n5:9005"}; !slices.Equal(addrs, want) {
		t.Errorf("addresses %v, want %v", addrs, want)
	}
	err := l.missing(map[int]mpiAnnouncement{0: got[0], 1: got[1]}, []string{"a", "b", "c", "BAD TERMINATION"})
	if msg := err.Error(); !strings.Contains(msg, "2 of 6 agents started") || !strings.Contains(msg, "rank 2 (n1), rank 3 (n5)") || !strings.Contains(msg, "BAD TERMINATION") {
		t.Errorf("missing: %s", msg)
	}
}

// An announcement is read wherever it is in a line, and a line that only
// looks like one is not taken.
func TestMPIAnnounce(t *testing.T) {
	an, ok := parseMPIAnnounce("[3] " + FormatMPIAnnounce(3, 1, "node7", 40123))
	if !ok || an.rank != 3 || an.localrank != 1 || an.host != "node7" || an.port != 40123 {
		t.Errorf("parsed %+v %v", an, ok)
	}
	for _, l := range []string{"storbench-mpi-agent rank=x", FormatMPIAnnounce(1, 0, "n", 0), FormatMPIAnnounce(-1, 0, "n", 80), "storbench agent listening"} {
		if _, ok := parseMPIAnnounce(l); ok {
			t.Errorf("%q taken as an announcement", l)
		}
	}
}
