package dfs

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/storbench/storbench/internal/testutil"
)

// netns is one network namespace per agent, each with one end of a veth
// pair whose other end is on a bridge here: 10.201.X.1 here, 10.201.X.(10+i)
// in namespace i, X a subnet no other harness or leftover bridge has
// (testutil.ClaimSubnet). The FUSE clients stay where their file system
// put them (they reach the servers); only the agents move.
type netns struct {
	bridge string
	names  []string
	veths  []string
	addrs  []string
	subnet *testutil.Subnet
}

// newNetns makes n namespaces, or returns nil (with nothing left) where
// ip cannot: the agents then listen on loopback ports.
func newNetns(n int) *netns {
	id, from := randomID()
	return newNetnsFrom(n, id, from)
}

// randomID is a random name part for links and namespaces, and a number
// from which to look for a free subnet.
func randomID() (string, int) {
	var b [2]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:]), int(b[0])
}

// newNetnsFrom is newNetns with its links named by id, looking for a free
// subnet from 10.201.(100+from%150).
func newNetnsFrom(n int, id string, from int) *netns {
	if _, err := exec.LookPath("ip"); err != nil {
		return nil
	}
	sub, err := testutil.ClaimSubnet("10.201", from)
	if err != nil {
		return nil
	}
	ns := &netns{bridge: "sd" + id + "br", subnet: sub}
	// One ip process for the links and namespaces here, and one in each
	// namespace for its end (ip -batch), not one a step: 33 processes,
	// 2-4 s of every cluster's start on the loaded test machine.
	here := []string{
		"link add " + ns.bridge + " type bridge",
		"addr add " + sub.Addr(1) + "/24 dev " + ns.bridge,
		"link set " + ns.bridge + " up",
	}
	inside := make([][]string, n)
	for i := range n {
		name, h, g := fmt.Sprintf("sbdfs-%s-%d", id, i), fmt.Sprintf("sd%sh%d", id, i), fmt.Sprintf("sd%sn%d", id, i)
		addr := sub.Addr(10 + i)
		ns.names, ns.veths, ns.addrs = append(ns.names, name), append(ns.veths, h), append(ns.addrs, addr)
		here = append(here,
			"netns add "+name,
			"link add "+h+" type veth peer name "+g,
			"link set "+g+" netns "+name,
			"link set "+h+" master "+ns.bridge+" up")
		inside[i] = []string{"addr add " + addr + "/24 dev " + g, "link set " + g + " up", "link set lo up"}
	}
	if ipBatch("", here) != nil {
		ns.remove()
		return nil
	}
	for i, name := range ns.names {
		if ipBatch(name, inside[i]) != nil {
			ns.remove()
			return nil
		}
	}
	return ns
}

// ipBatch runs ip's commands in one process (ip -batch), in network
// namespace netns unless it is "", stopping at the first that fails.
func ipBatch(netns string, cmds []string) error {
	args := []string{"-batch", "-"}
	if netns != "" {
		args = append([]string{"-n", netns}, args...)
	}
	cmd := exec.Command("ip", args...)
	cmd.Stdin = strings.NewReader(strings.Join(cmds, "\n") + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// remove deletes the namespaces, veths and the bridge (what exists).
func (ns *netns) remove() {
	for i := range ns.names {
		_ = exec.Command("ip", "netns", "del", ns.names[i]).Run()
		_ = exec.Command("ip", "link", "del", ns.veths[i]).Run()
	}
	_ = exec.Command("ip", "link", "del", ns.bridge).Run()
	ns.subnet.Release()
}

// left names the namespaces and links of ns still there.
func (ns *netns) left() []string {
	return leftNet(ns.names, append([]string{ns.bridge}, ns.veths...))
}

// leftNet names those of the network namespaces and links here that
// exist.
func leftNet(names, links []string) []string {
	var left []string
	if out, err := exec.Command("ip", "netns", "list").Output(); err == nil {
		for _, n := range names {
			if strings.Contains(" "+strings.Join(strings.Fields(string(out)), " ")+" ", " "+n+" ") {
				left = append(left, "network namespace "+n)
			}
		}
	}
	for _, l := range links {
		if exec.Command("ip", "link", "show", l).Run() == nil {
			left = append(left, "link "+l)
		}
	}
	return left
}

// ServerNet is a network namespace for servers that refuse loopback
// addresses (MooseFS's chunkserver refuses a master on 127.0.0.0/8, and
// this kernel has no dummy link type): both ends of a veth pair inside
// it, with Addrs[0] and Addrs[1] on the project's test-host range
// (10.202.X.1 and .2, X claimed as the agents' subnet is, though
// nothing outside the namespace sees it: two harnesses' servers on one
// machine stay apart in logs and in ss). Processes run in it through nsenter --net (In),
// which keeps them in this mount namespace: their FUSE mounts are seen
// here, where `ip netns exec` would hide them in a mount namespace of its
// own.
type ServerNet struct {
	// Name is the namespace's name (ip netns list); Path its file.
	Name, Path string
	// Addrs are the two ends' addresses.
	Addrs  [2]string
	links  [2]string
	subnet *testutil.Subnet
}

// NewServerNet makes a ServerNet, failing c's test when ip cannot; c's
// teardown removes it (after Stop) and names it when it stays.
func NewServerNet(c *Cluster) *ServerNet {
	c.t.Helper()
	id, from := randomID()
	return newServerNetFrom(c, id, from)
}

// newServerNetFrom is NewServerNet with its links named by id, looking
// for a free subnet from 10.202.(100+from%150).
func newServerNetFrom(c *Cluster, id string, from int) *ServerNet {
	c.t.Helper()
	sub, err := testutil.ClaimSubnet("10.202", from)
	if err != nil {
		c.t.Fatalf("the servers' network namespace: %v", err)
	}
	sn := &ServerNet{Name: "sbsrv-" + id, Path: filepath.Join("/run/netns", "sbsrv-"+id),
		Addrs: [2]string{sub.Addr(1), sub.Addr(2)}, subnet: sub,
		links: [2]string{"ss" + id + "a", "ss" + id + "b"}}
	c.serverNets = append(c.serverNets, sn)
	here := []string{"netns add " + sn.Name, "link add " + sn.links[0] + " type veth peer name " + sn.links[1],
		"link set " + sn.links[0] + " netns " + sn.Name, "link set " + sn.links[1] + " netns " + sn.Name}
	var inside []string
	for i, l := range sn.links {
		inside = append(inside, "addr add "+sn.Addrs[i]+"/24 dev "+l, "link set "+l+" up")
	}
	inside = append(inside, "link set lo up")
	if err := ipBatch("", here); err != nil {
		c.t.Fatalf("the servers' network namespace: %v", err)
	}
	if err := ipBatch(sn.Name, inside); err != nil {
		c.t.Fatalf("the servers' network namespace: %v", err)
	}
	return sn
}

// In is a command run in the namespace (nsenter --net), in this mount
// namespace.
func (sn *ServerNet) In(name string, args ...string) *exec.Cmd {
	return exec.Command("nsenter", append([]string{"--net=" + sn.Path, "--", name}, args...)...)
}

// remove deletes the namespace; the veth pair inside goes with it.
func (sn *ServerNet) remove() {
	_ = exec.Command("ip", "netns", "del", sn.Name).Run()
	sn.subnet.Release()
}

func (sn *ServerNet) left() []string { return leftNet([]string{sn.Name}, sn.links[:]) }
