package hosts

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// Slurm host lists expand as `scontrol show hostnames` expands them: the
// padding of each range's first bound kept, several bracket groups with the
// first outermost, comma lists around and inside brackets, and whatever
// follows the brackets (":port") copied to every name.
func TestExpandSlurm(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
	}{
		{"node[01-03,20]", "node01 node02 node03 node20"},
		{"rack[1-2]-node[01-03]", "rack1-node01 rack1-node02 rack1-node03 rack2-node01 rack2-node02 rack2-node03"},
		{"a[1-2],b3", "a1 a2 b3"},
		{"node[1-2]:7761", "node1:7761 node2:7761"},
		{"a[1-2]:7761,b3:7762", "a1:7761 a2:7761 b3:7762"},
		{"node[001-3]", "node001 node002 node003"},
		{"node[007]", "node007"},
		{"node[3,1-2]", "node3 node1 node2"},
		{"node[1,1-2]", "node1 node2"},
		{"node[01-2,5]", "node01 node02 node5"},
		{"n[1-2]c{1...2}", "n1c1 n1c2 n2c1 n2c2"},
		{"[1-2].example.com", "1.example.com 2.example.com"},
		{"10.0.0.[9-10]", "10.0.0.9 10.0.0.10"},
		// An IPv6 address in brackets is an address, not a range.
		{"[::1]:7761,[::1]:7762", "[::1]:7761 [::1]:7762"},
		{"[fe80::1]:7761", "[fe80::1]:7761"},
	} {
		got, err := Expand([]string{c.in}, 0)
		if err != nil || strings.Join(got, " ") != c.want {
			t.Errorf("%s = %v, %v; want %s", c.in, got, err, c.want)
		}
	}
	// A range wider than its first bound: the padding is the first bound's,
	// later numbers grow past it (as Slurm prints node[01-100]).
	got, err := Expand([]string{"node[01-100]"}, 0)
	if err != nil || len(got) != 100 || got[0] != "node01" || got[98] != "node99" || got[99] != "node100" {
		t.Errorf("node[01-100]: %d names %v %v", len(got), got, err)
	}
}

func TestExpandSlurmBad(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
	}{
		{"node[01-16", "'[' without ']'"},
		{"node01-16]", "']' without '['"},
		{"a[1-2],b[3", "'[' without ']'"},
		{"node[5-1]", "runs backwards"},
		{"node[]", "empty"},
		{"node[1,,2]", "empty"},
		{"node[1-]", "malformed"},
		{"node[-1]", "malformed"},
		{"node[a-b]", "malformed"},
		{"node[1-2-3]", "malformed"},
		{"node[1 -2]", "malformed"},
		{"node[[1]]", "malformed"},
		{"node[1-010]", "padded differently"},
		{"node[01-0010]", "padded differently"},
		{"node[99999999999999999999]", "too large"},
		{"node[1-1025]", "over the limit of 1024"},
		{"a[1-512],b[1-513]", "over the limit"},
		{"r[1-100]n[1-100]", "expands to 10000 names, over the limit of 1024"},
	} {
		_, err := Expand([]string{c.in}, 0)
		entry := c.in // the error names the entry at fault
		if i := strings.Index(c.in, "],"); i > 0 {
			entry = c.in[i+2:]
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `"`+entry+`"`) {
			t.Errorf("%s: %v, want an error naming it and saying %q", c.in, err, c.want)
		}
	}
	if got, err := Expand([]string{"node[1-1024]"}, 0); err != nil || len(got) != 1024 {
		t.Errorf("node[1-1024]: %d names, %v", len(got), err)
	}
}

// A list far past the limit is refused by counting, before any name is
// built: were it built, these would take minutes and gigabytes.
func TestExpandSlurmCountsFirst(t *testing.T) {
	for _, in := range []string{
		"node[0-99999999]",
		"node[0-999999999999999999]",
		"a[0-999999999999999999]b[0-999999999999999999]c[0-999999999999999999]",
		"node[0-99999999]:7761,x",
	} {
		allocs := testing.AllocsPerRun(1, func() {
			if _, err := Expand([]string{in}, 0); err == nil || !strings.Contains(err.Error(), "over the limit") {
				t.Errorf("%s: %v", in, err)
			}
		})
		if allocs > 50 {
			t.Errorf("%s: %v allocations to refuse it; the names were built", in, allocs)
		}
	}
}

// The same list written with braces and with brackets gives the same names.
func TestExpandSlurmMatchesBraces(t *testing.T) {
	for i := 1; i <= 12; i++ {
		b, _ := Expand([]string{fmt.Sprintf("client{01...%02d}:7761", i)}, 0)
		s, _ := Expand([]string{fmt.Sprintf("client[01-%02d]:7761", i)}, 0)
		if !reflect.DeepEqual(b, s) || len(s) != i {
			t.Errorf("%d: braces %v, brackets %v", i, b, s)
		}
	}
}
