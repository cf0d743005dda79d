package dfs

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// Two harnesses starting at once, both looking first at the same subnet,
// get subnets of their own, and neither takes one a bridge here already
// has (a killed run's, or another test package's): on one subnet the
// agents' packets go to the wrong bridge ("no route to host"), and two
// clusters' servers answer on one address. The agents' namespaces and
// the servers' alike.
func TestNamespacesTakeFreeSubnets(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("network namespaces need root (ip netns add)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("network namespaces need iproute2's ip")
	}
	id, from := randomID()
	taken := 100 + from%150
	// This kernel has no dummy link type: a bridge holds the address.
	busy := "sd" + id + "bz"
	for _, s := range [][]string{{"link", "add", busy, "type", "bridge"}, {"addr", "add", fmt.Sprintf("10.201.%d.1/24", taken), "dev", busy}} {
		if out, err := exec.Command("ip", s...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v: %s", strings.Join(s, " "), err, out)
		}
	}
	t.Cleanup(func() { _ = exec.Command("ip", "link", "del", busy).Run() })

	var nets [2]*netns
	var wg sync.WaitGroup
	for i := range nets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nets[i] = newNetnsFrom(1, fmt.Sprintf("%s%d", id, i), from)
		}()
	}
	wg.Wait()
	seen := map[string]bool{fmt.Sprintf("10.201.%d.", taken): true}
	for i, ns := range nets {
		if ns == nil {
			t.Fatalf("harness %d made no network namespaces", i)
		}
		t.Cleanup(ns.remove)
		subnet := strings.TrimSuffix(ns.addrs[0], "10")
		if seen[subnet] {
			t.Errorf("harness %d's agents are on %s0/24, which a bridge here or the other harness has", i, subnet)
		}
		seen[subnet] = true
	}

	var servers [2]*ServerNet
	t.Cleanup(func() {
		for _, sn := range servers {
			if sn != nil {
				sn.remove()
			}
		}
	})
	for i := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			servers[i] = newServerNetFrom(&Cluster{t: t}, fmt.Sprintf("%s%d", id, i), from)
		}()
	}
	wg.Wait()
	for i, sn := range servers {
		if sn == nil {
			t.Fatalf("harness %d made no servers' network namespace", i)
		}
	}
	if servers[0].Addrs[0] == servers[1].Addrs[0] {
		t.Errorf("two harnesses' servers are both on %s", servers[0].Addrs[0])
	}
}
