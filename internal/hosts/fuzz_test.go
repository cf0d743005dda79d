package hosts

import (
	"fmt"
	"strings"
	"testing"
)

// FuzzExpand: any input either fails or yields at most the limit of
// non-empty names, without panicking.
func FuzzExpand(f *testing.F) {
	for _, s := range []string{"client{1...8}:7761", "a,b,,c", "n{01...10}", "x{9...1}", "{1...3}{1...3}", "h{1..2}", "{}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := Expand([]string{s}, 64)
		if err != nil {
			return
		}
		if len(out) > 64 {
			t.Fatalf("%q expanded to %d names, over the limit", s, len(out))
		}
		for _, n := range out {
			if n == "" {
				t.Fatalf("%q expanded to an empty name", s)
			}
		}
	})
}

// FuzzSlurmList: any host list either fails or yields at most the limit of
// names, none empty, with no range left in them (brackets only around an
// IPv6 address), each of which expands to itself again.
func FuzzSlurmList(f *testing.F) {
	for _, s := range []string{
		"node[01-16,20]", "rack[1-2]-node[01-03]", "a[1-2],b3", "node[1-2]:7761", "a[1-2]:7761,b3:7762",
		"node[01-100]", "node[1-010]", "node[5-1]", "node[01-16", "node]", "node[]", "node[1,,2]",
		"node[0-99999999]", "[::1]:7761,[::1]:7762", "n[1-2]c{1...2}", "[1-3]", "a[0-9][0-9][0-9]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := Expand([]string{s}, 64)
		if err != nil {
			return
		}
		if len(out) > 64 {
			t.Fatalf("%q expanded to %d names, over the limit", s, len(out))
		}
		for _, n := range out {
			if n == "" {
				t.Fatalf("%q expanded to an empty name", s)
			}
			if strings.ContainsAny(n, "[]") && !strings.Contains(n, ":") {
				t.Fatalf("%q expanded to %q, a range left in it", s, n)
			}
			again, err := Expand([]string{n}, 64)
			if err != nil || len(again) != 1 || again[0] != n {
				t.Fatalf("%q expanded to %q, which expands to %q, %v", s, n, again, err)
			}
		}
	})
}

// FuzzHostfile: any file either fails naming the file (and the line) or
// yields checked entries: valid names, ports and slots, no host twice, no
// port in an MPI hostfile, and entries that read back as written.
func FuzzHostfile(f *testing.F) {
	for _, s := range []string{
		"# rack\nnode{1...3}:7761  # three\n\nnode9\n", "client1:7762 slots=8\n", "node[01-02] slots=4 max_slots=8\n",
		"donner:2\nfoo:3\nshakey\n", "client[1-8]:136\n", "[::1]:4\nfe80::1\n", "node1 slots=0\n", "a:2\na:2\n",
		"node1 slots = 4\n", "node[0-99999999]\n", "user@host slots=2\n", "a b,c\n",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, mpi bool) {
		format := AgentsFormat
		if mpi {
			format = MPIFormat
		}
		es, err := ParseHostfile("hosts.txt", data, format, 64)
		if err != nil {
			msg := err.Error()
			if msg == "hosts.txt names no host" {
				return
			}
			var line int
			if _, serr := fmt.Sscanf(msg, "hosts.txt:%d:", &line); serr != nil || line < 1 || line > strings.Count(string(data), "\n")+1 {
				t.Fatalf("error %q names no line of the file", msg)
			}
			return
		}
		if len(es) == 0 || len(es) > 64 {
			t.Fatalf("%d entries", len(es))
		}
		seen := map[Entry]bool{}
		for _, e := range es {
			if err := CheckName(e.Host); err != nil {
				t.Fatalf("entry %+v: %v", e, err)
			}
			if e.Port < 0 || e.Port > 65535 || (mpi && e.Port != 0) || e.Slots < 0 || e.Slots > MaxSlots {
				t.Fatalf("entry %+v out of range", e)
			}
			k := Entry{Host: e.Host, Port: e.Port}
			if seen[k] {
				t.Fatalf("%s listed twice", k)
			}
			seen[k] = true
			back, err := ParseEntry(e.String())
			if err != nil || back.Host != e.Host || back.Port != e.Port {
				t.Fatalf("%+v written %q reads back as %+v, %v", e, e.String(), back, err)
			}
		}
	})
}
