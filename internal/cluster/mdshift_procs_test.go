package cluster_test

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/results"
)

// mdtest 3.3+'s -N with real agent processes on loopback, sharing one
// directory: -N 1 shifts stat by one host's worth of ranks, read by two
// and remove by three. On 4 hosts (2 or 4 workers each) every item a
// stat, read or remove touched was created by another host
// (cross_host_items equals the operation's count in summary.json); on 3
// hosts stat and read cross hosts and remove works on the host's own
// items, as in mdtest. Nothing fails and every item created is worked on.
func TestClusterMdShiftByHosts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		hosts, workers int
		remoteRemove   bool
	}{
		{4, 2, true},
		{4, 4, true},
		{3, 2, false},
	} {
		t.Run(fmt.Sprintf("%d_hosts_x_%d", tc.hosts, tc.workers), func(t *testing.T) {
			c := startCluster(t, loopback(t, tc.hosts), nil, nil)
			data := t.TempDir()
			code, out := c.run(t, "md", "-d", data, "-n", "60", "-t", fmt.Sprint(tc.workers), "-F", "-N", "1",
				"--write-bytes", "16", "--read-bytes", "16")
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, out)
			}
			ph := summaryOf(t, folderOf(t, out)).Phases[0]
			created := uint64(tc.hosts * tc.workers * 60)
			for _, name := range []string{"file-stat", "file-read", "file-remove"} {
				o := opNamed(t, ph.Ops, name)
				if o.Ops != created || o.Errors != 0 {
					t.Errorf("%s: %d items, %d errors; want the %d created, none", name, o.Ops, o.Errors, created)
				}
				want := o.Ops
				if name == "file-remove" && !tc.remoteRemove {
					want = 0
				}
				if o.CrossHostItems == nil || *o.CrossHostItems != want {
					t.Errorf("%s: %s of %d items created by another host, want %d", name, count(o.CrossHostItems), o.Ops, want)
				}
			}
			if tc.hosts == 3 && !strings.Contains(out, "remove shifted by 3 hosts work on the host's own items") {
				t.Errorf("no word that remove works on the host's own items on 3 hosts:\n%s", out)
			}
		})
	}
}

func opNamed(t *testing.T, ops []results.OpSummary, name string) results.OpSummary {
	t.Helper()
	for _, o := range ops {
		if o.Op == name {
			return o
		}
	}
	t.Fatalf("no %s in %v", name, ops)
	return results.OpSummary{}
}

// Ranks are numbered as the hosts are given on the command line: the
// shell's --agents 127.0.0.1:{A,B,C} gives A to --agents and B and C as
// HOST arguments, and a HOST argument may come before --agents; either
// way the hosts run (and are numbered, run.json's ranks) A, B, C.
func TestClusterRanksInTheOrderGiven(t *testing.T) {
	t.Parallel()
	c := startCluster(t, loopback(t, 3), nil, nil)
	a := c.tp.addrs
	for _, hosts := range [][]string{
		{"--agents", a[0], a[1], a[2]},
		{a[0], "--agents", a[1], a[2]},
		{a[0], a[1], "--agents", a[2]},
	} {
		data := t.TempDir()
		args := append([]string{"md", "-d", data, "-n", "10", "-t", "1", "-F", "--token-file", c.token,
			"--results", filepath.Join(c.dir, "results")}, hosts...)
		out, err := exec.Command(c.bin, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v:\n%s", hosts, err, out)
		}
		ri, err := results.ReadRunInfo(folderOf(t, string(out)))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range ri.Ranks[0].Hosts {
			got = append(got, fmt.Sprint(h.Host, "@", h.First))
		}
		var want []string
		for i, addr := range a {
			want = append(want, fmt.Sprint(strings.ReplaceAll(addr, ":", "-"), "@", i))
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%v: ranks %v, want %v", hosts, got, want)
		}
	}
}
