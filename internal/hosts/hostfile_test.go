package hosts

import (
	"fmt"
	"strings"
	"testing"
)

// show prints entries as host:port/slots for comparisons.
func show(es []Entry) string {
	var s []string
	for _, e := range es {
		d := ""
		if e.Dir != "" {
			d = "@" + e.Dir
		}
		s = append(s, fmt.Sprintf("%s:%d/%d%s", e.Host, e.Port, e.Slots, d))
	}
	return strings.Join(s, " ")
}

func TestParseHostfile(t *testing.T) {
	for _, c := range []struct {
		f    Format
		text string
		want string
	}{
		// storbench's agents file, as before: host[:port] and ranges, several
		// per line, comments and blank lines.
		{AgentsFormat, "# the rack\nnode{1...3}:7761  # three\n\nnode9\n", "node1:7761/0 node2:7761/0 node3:7761/0 node9:0/0"},
		{AgentsFormat, "a b,c\n", "a:0/0 b:0/0 c:0/0"},
		// host:N in an agents file stays a port, as it always was.
		{AgentsFormat, "client1:136\n", "client1:136/0"},
		{AgentsFormat, "[::1]:7762\nfe80::1\n", "::1:7762/0 fe80::1:0/0"},
		// Open MPI's slots= is read in an agents file too (it was refused before).
		{AgentsFormat, "client1:7762 slots=8\n", "client1:7762/8"},
		{AgentsFormat, "node1 slots=4\nnode2\tslots=4   max_slots=8 # comment\n", "node1:0/4 node2:0/4"},
		{AgentsFormat, "node[01-02] slots=4 max-slots=4\n", "node01:0/4 node02:0/4"},
		{AgentsFormat, "node1\nnode1\n", "node1:0/0"},
		// dir=PATH: where a host mounts the target directory (issue 23).
		{AgentsFormat, "c1:7761 dir=/mnt/gluster\nc2:7761 slots=2 dir=/gluster/vol\n", "c1:7761/0@/mnt/gluster c2:7761/2@/gluster/vol"},
		{MPIFormat, "c[1-2]:4 dir=/mnt/a\n", "c1:0/4@/mnt/a c2:0/4@/mnt/a"},
		// MPICH's host:slots, Open MPI's slots=, both with Slurm lists.
		{MPIFormat, "# sample\ndonner:2 # first\nfoo:3\nshakey\n", "donner:0/2 foo:0/3 shakey:0/0"},
		{MPIFormat, "client[1-3]:136\n", "client1:0/136 client2:0/136 client3:0/136"},
		{MPIFormat, "client{1...2}:136\r\n", "client1:0/136 client2:0/136"},
		{MPIFormat, "node01 slots=10\nnode13  slots=5 max_slots=5\n", "node01:0/10 node13:0/5"},
		{MPIFormat, "[::1]:4\n[fe80::2]\n", "::1:0/4 fe80::2:0/0"},
	} {
		got, err := ParseHostfile("hosts.txt", []byte(c.text), c.f, 0)
		if err != nil || show(got) != c.want {
			t.Errorf("%v %q = %s, %v; want %s", c.f, c.text, show(got), err, c.want)
		}
	}
}

// Every malformed line is refused with the file and line number and what
// is wrong with it.
func TestParseHostfileBad(t *testing.T) {
	for _, c := range []struct {
		f    Format
		text string
		want string
	}{
		{AgentsFormat, "a\nb\nnode1 slots=0\n", "hosts.txt:3: slots=0"},
		{AgentsFormat, "node1 slots=-1\n", "hosts.txt:1: slots=-1"},
		{AgentsFormat, "node1 slots=abc\n", "hosts.txt:1: slots=abc"},
		{AgentsFormat, "node1 slots=99999999999999999999\n", "hosts.txt:1: slots=99999999999999999999"},
		{AgentsFormat, "node1 slots=65537\n", "from 1 to 65536"},
		{AgentsFormat, "node1 slots=1e3\n", "hosts.txt:1: slots=1e3"},
		{AgentsFormat, "node1 slots=\n", "hosts.txt:1: slots="},
		{AgentsFormat, "node1 slots = 4\n", "hosts.txt:1: write slots=N"},
		{AgentsFormat, "node1 slots=4 slots=5\n", "given twice"},
		{AgentsFormat, "node1 slots=4 max_slots=2\n", "max_slots=2 is below slots=4"},
		{AgentsFormat, "node1 foo=bar\n", `hosts.txt:1: "foo=bar" is not understood: a host may be followed by slots=N, max_slots=M and dir=PATH`},
		{AgentsFormat, "node1 dir=mnt/x\n", "hosts.txt:1: dir=mnt/x: give the host's path for the run's directory as a clean absolute path"},
		{AgentsFormat, "node1 dir=/mnt/x/../y\n", "hosts.txt:1: dir=/mnt/x/../y: give"},
		{AgentsFormat, "node1 dir=\n", "hosts.txt:1: dir=: give"},
		{AgentsFormat, "node1 dir=/a dir=/b\n", "hosts.txt:1: dir given twice"},
		{AgentsFormat, "node1 slots=4 node2\n", "hosts.txt:1: want one host list, then slots=N"},
		{AgentsFormat, "slots=4\n", "hosts.txt:1: want one host list, then slots=N"},
		{AgentsFormat, "ok\nnode[1-2 slots=4\n", "hosts.txt:2: host list \"node[1-2\": '[' without ']'"},
		{AgentsFormat, "node[5-1]\n", "hosts.txt:1: host list \"node[5-1]\": range [5-1] runs backwards"},
		{AgentsFormat, "node[1-010]\n", "padded differently"},
		{AgentsFormat, "\n\nnode[0-99999999]\n", "hosts.txt:3: host list \"node[0-99999999]\" expands to 100000000 names, over the limit of 1024"},
		{AgentsFormat, "h:0\n", "hosts.txt:1: \"h:0\": port \"0\""},
		{AgentsFormat, "h:99999\n", "hosts.txt:1: \"h:99999\": port"},
		{AgentsFormat, "bad!host\n", "hosts.txt:1: host \"bad!host\" is malformed"},
		{AgentsFormat, "user@node1 slots=2\n", "hosts.txt:1: host \"user@node1\" is malformed"},
		{AgentsFormat, "node1 slots=4\nnode2\nnode1 slots=4\n", "hosts.txt:3: node1 is already listed at line 1"},
		{AgentsFormat, "node1\nnode1 slots=4\n", "hosts.txt:2: node1 is already listed at line 1"},
		{AgentsFormat, "# nothing\n\n", "hosts.txt names no host"},
		{AgentsFormat, "", "hosts.txt names no host"},
		{MPIFormat, "node1:0\n", "hosts.txt:1: slots 0 of \"node1:0\""},
		{MPIFormat, "node1:-2\n", "hosts.txt:1: slots -2 of \"node1:-2\""},
		{MPIFormat, "node1:x\n", "hosts.txt:1: slots x of \"node1:x\""},
		{MPIFormat, "node1:99999999\n", "from 1 to 65536"},
		{MPIFormat, "node1:4 slots=4\n", "hosts.txt:1: node1:4 gives slots twice"},
		{MPIFormat, "a b\n", "hosts.txt:1: want one host list per line"},
		{MPIFormat, "fe80::1:4\n", `hosts.txt:1: "fe80::1:4": write the IPv6 address in brackets`},
		{MPIFormat, "a:2\nb:2\na:2\n", "hosts.txt:3: a is already listed at line 1"},
		{MPIFormat, "node[1-2]:4\nnode2:4\n", "hosts.txt:2: node2 is already listed at line 1"},
	} {
		_, err := ParseHostfile("hosts.txt", []byte(c.text), c.f, 0)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %q: %v, want %q", c.f, c.text, err, c.want)
		}
	}
}

// The limit counts every host of the file.
func TestParseHostfileLimit(t *testing.T) {
	if _, err := ParseHostfile("h", []byte("a[1-6]\nb[1-5]\n"), AgentsFormat, 10); err == nil || !strings.Contains(err.Error(), "h:2:") {
		t.Errorf("11 hosts under a limit of 10: %v", err)
	}
	if got, err := ParseHostfile("h", []byte("a[1-5]\nb[1-5]\n"), AgentsFormat, 10); err != nil || len(got) != 10 {
		t.Errorf("10 hosts under a limit of 10: %d, %v", len(got), err)
	}
}

func TestEqualSlots(t *testing.T) {
	for _, c := range []struct {
		in   []Entry
		want int
		err  string
	}{
		{[]Entry{{Host: "a"}, {Host: "b"}}, 0, ""},
		{[]Entry{{Host: "a", Slots: 8}, {Host: "b", Slots: 8}}, 8, ""},
		{[]Entry{{Host: "a", Slots: 4}, {Host: "b", Slots: 8}}, 0, "a has 4 slots and b 8"},
		{[]Entry{{Host: "a", Slots: 4}, {Host: "b", Port: 7762}}, 0, "a has 4 slots and b:7762 none"},
		{[]Entry{{Host: "a"}, {Host: "b", Slots: 2}}, 0, "a has no slots and b 2"},
	} {
		got, err := EqualSlots(c.in)
		if got != c.want || (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%v: %d, %v; want %d, %q", c.in, got, err, c.want, c.err)
		}
	}
}

func TestParseEntry(t *testing.T) {
	for in, want := range map[string]string{"n1": "n1:0/0", "n1:7761": "n1:7761/0", "[::1]:9": "::1:9/0", "::1": "::1:0/0"} {
		e, err := ParseEntry(in)
		if err != nil || show([]Entry{e}) != want || e.String() != in {
			t.Errorf("%s: %s (%s), %v; want %s", in, show([]Entry{e}), e.String(), err, want)
		}
	}
	for _, bad := range []string{"", "h:", "h:0", "h:x", "bad host", "-oProxyCommand=x"} {
		if _, err := ParseEntry(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
