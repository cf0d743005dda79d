package dfs

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// netns is one network namespace per agent, each with one end of a veth
// pair whose other end is on a bridge here: 10.201.X.1 here, 10.201.X.(10+i)
// in namespace i. The FUSE clients stay where their file system put them
// (they reach the servers); only the agents move.
type netns struct {
	bridge string
	names  []string
	veths  []string
	addrs  []string
}

// newNetns makes n namespaces, or returns nil (with nothing left) where
// ip cannot: the agents then listen on loopback ports.
func newNetns(n int) *netns {
	if _, err := exec.LookPath("ip"); err != nil {
		return nil
	}
	var b [2]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	net3 := 100 + int(b[0])%150
	ns := &netns{bridge: "sd" + id + "br"}
	steps := [][]string{
		{"link", "add", ns.bridge, "type", "bridge"},
		{"addr", "add", fmt.Sprintf("10.201.%d.1/24", net3), "dev", ns.bridge},
		{"link", "set", ns.bridge, "up"},
	}
	for i := range n {
		name, h, g := fmt.Sprintf("sbdfs-%s-%d", id, i), fmt.Sprintf("sd%sh%d", id, i), fmt.Sprintf("sd%sn%d", id, i)
		addr := fmt.Sprintf("10.201.%d.%d", net3, 10+i)
		ns.names, ns.veths, ns.addrs = append(ns.names, name), append(ns.veths, h), append(ns.addrs, addr)
		steps = append(steps,
			[]string{"netns", "add", name},
			[]string{"link", "add", h, "type", "veth", "peer", "name", g},
			[]string{"link", "set", g, "netns", name},
			[]string{"link", "set", h, "master", ns.bridge, "up"},
			[]string{"netns", "exec", name, "ip", "addr", "add", addr + "/24", "dev", g},
			[]string{"netns", "exec", name, "ip", "link", "set", g, "up"},
			[]string{"netns", "exec", name, "ip", "link", "set", "lo", "up"})
	}
	for _, s := range steps {
		if exec.Command("ip", s...).Run() != nil {
			ns.remove()
			return nil
		}
	}
	return ns
}

// remove deletes the namespaces, veths and the bridge (what exists).
func (ns *netns) remove() {
	for i := range ns.names {
		_ = exec.Command("ip", "netns", "del", ns.names[i]).Run()
		_ = exec.Command("ip", "link", "del", ns.veths[i]).Run()
	}
	_ = exec.Command("ip", "link", "del", ns.bridge).Run()
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
// (10.202.X.1 and .2). Processes run in it through nsenter --net (In),
// which keeps them in this mount namespace: their FUSE mounts are seen
// here, where `ip netns exec` would hide them in a mount namespace of its
// own.
type ServerNet struct {
	// Name is the namespace's name (ip netns list); Path its file.
	Name, Path string
	// Addrs are the two ends' addresses.
	Addrs [2]string
	links [2]string
}

// NewServerNet makes a ServerNet, failing c's test when ip cannot; c's
// teardown removes it (after Stop) and names it when it stays.
func NewServerNet(c *Cluster) *ServerNet {
	c.t.Helper()
	var b [2]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	net3 := 100 + int(b[0])%150
	sn := &ServerNet{Name: "sbsrv-" + id, Path: filepath.Join("/run/netns", "sbsrv-"+id),
		Addrs: [2]string{fmt.Sprintf("10.202.%d.1", net3), fmt.Sprintf("10.202.%d.2", net3)},
		links: [2]string{"ss" + id + "a", "ss" + id + "b"}}
	c.serverNets = append(c.serverNets, sn)
	steps := [][]string{
		{"netns", "add", sn.Name},
		{"link", "add", sn.links[0], "type", "veth", "peer", "name", sn.links[1]},
		{"link", "set", sn.links[0], "netns", sn.Name},
		{"link", "set", sn.links[1], "netns", sn.Name},
	}
	for i, l := range sn.links {
		steps = append(steps, []string{"-n", sn.Name, "addr", "add", sn.Addrs[i] + "/24", "dev", l},
			[]string{"-n", sn.Name, "link", "set", l, "up"})
	}
	steps = append(steps, []string{"-n", sn.Name, "link", "set", "lo", "up"})
	for _, s := range steps {
		if out, err := exec.Command("ip", s...).CombinedOutput(); err != nil {
			c.t.Fatalf("the servers' network namespace: ip %s: %v: %s", strings.Join(s, " "), err, out)
		}
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
}

func (sn *ServerNet) left() []string { return leftNet([]string{sn.Name}, sn.links[:]) }
