package cluster

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/hosts"
)

// Every host gets a unique name for results and per-host paths: the host
// alone when hosts differ, host-port when two share a host.
func TestHostNames(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"client1:7761,client2:7761", "client1,client2"},
		{"client1,client2:7000", "client1,client2"},
		{"127.0.0.1:7761,127.0.0.1:7762", "127.0.0.1-7761,127.0.0.1-7762"},
		{"[::1]:7761,[::1]:7762", "1--7761,1--7762"},
		// shared is the run's shared area (DIR/storbench/<run id>/shared),
		// in any case: such a host is renamed, to a name no other host has.
		{"shared:7761,client2", "shared-host,client2"},
		{"SHARED", "SHARED-host"},
		{"shared,shared-host:7000", "shared-host-host,shared-host"},
	} {
		got := strings.Join(HostNames(strings.Split(tc.in, ",")), ",")
		if got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestHostEntries(t *testing.T) {
	f := filepath.Join(t.TempDir(), "agents")
	_ = os.WriteFile(f, []byte("# the rack\nnode{1...3}:7761  # three\n\nnode9\n"), 0o644)
	es, err := HostEntries([]string{"pos"}, []string{"extra:1"}, f, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		got = append(got, e.String())
	}
	if strings.Join(got, ",") != "pos,extra:1,node1:7761,node2:7761,node3:7761,node9" {
		t.Errorf("entries %v", got)
	}
	empty := filepath.Join(t.TempDir(), "none")
	_ = os.WriteFile(empty, []byte("# nothing\n"), 0o644)
	if _, err := HostEntries(nil, nil, empty, ""); err == nil || !strings.Contains(err.Error(), "names no host") {
		t.Errorf("empty agents file: %v", err)
	}
	for _, bad := range []string{"h:0", "h:99999", "h:x"} {
		if _, _, err := SplitHostPort(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// Two agents on a host whose first label is 59 bytes are named
// HOST-PORT, 64 bytes, and an agent refuses a label of more than 63
// (hosts.CheckName): each such name is shortened to one the agent takes,
// the same every time, the agents of a run still apart; so are the names
// mpiexec's and Slurm's agents take (host-slot), the name of this machine
// and a name of more than 253 bytes. Each keeps the start of its host
// and the port. Names that fit stay as they are.
func TestLongHostNamesFit(t *testing.T) {
	long := strings.Repeat("a", 50) + "-rack7-n1"                // 59 bytes
	deep := strings.Repeat(strings.Repeat("b", 62)+".", 4) + "x" // 253 bytes
	in := []string{long + ":7761", long + ":7762", "short:7761", "short:7762", deep + ":7761", deep + ":7762"}
	ssh := HostNames(in)
	if !slices.Equal(ssh, HostNames(in)) {
		t.Errorf("not the same names twice: %v, %v", ssh, HostNames(in))
	}
	if ssh[2] != "short-7761" || ssh[3] != "short-7762" {
		t.Errorf("names that fit were changed: %v", ssh[2:4])
	}
	if !strings.HasPrefix(ssh[0], long[:40]) || !strings.HasSuffix(ssh[0], "-7761") || !strings.HasSuffix(ssh[1], "-7762") {
		t.Errorf("%v: a shortened name does not begin as its host does, or lost its port", ssh[:2])
	}
	var mpi, slurm []string
	l := &MPIExecLauncher{Hosts: []hosts.Entry{{Host: long + "0000", Slots: 2}}}
	for _, a := range l.agents(map[int]mpiAnnouncement{0: {rank: 0, port: 9000}, 1: {rank: 1, port: 9001}}, "tok") {
		mpi = append(mpi, a.Host)
	}
	sl := &SlurmLauncher{Alloc: Allocation{Nodes: []string{long + "0000"}, Tasks: []int{2}}}
	agents, _ := sl.agents([]announcement{{long + "0000", 0, 0, 9000}, {long + "0000", 1, 1, 9001}}, "tok", nil)
	for _, a := range agents {
		slurm = append(slurm, a.Host)
	}
	for _, names := range [][]string{ssh, mpi, slurm, {HostName(strings.Repeat("c", 64))}} {
		seen := map[string]bool{}
		for _, n := range names {
			// What an agent checks of the name it is given.
			if err := (&Request{Host: n, Next: n}).checkNames(); err != nil {
				t.Errorf("%d bytes: %v", len(n), err)
			}
			if seen[n] {
				t.Errorf("%s named twice in %v", n, names)
			}
			seen[n] = true
		}
	}
}
