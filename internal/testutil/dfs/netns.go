package gluster

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os/exec"
)

// netns is one network namespace per agent, each with one end of a veth
// pair whose other end is on a bridge here: 10.201.X.1 here, 10.201.X.(10+i)
// in namespace i. The FUSE clients stay in this namespace (they reach the
// bricks on this machine's host name); only the agents move.
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
	ns := &netns{bridge: "sg" + id + "br"}
	steps := [][]string{
		{"link", "add", ns.bridge, "type", "bridge"},
		{"addr", "add", fmt.Sprintf("10.201.%d.1/24", net3), "dev", ns.bridge},
		{"link", "set", ns.bridge, "up"},
	}
	for i := range n {
		name, h, g := fmt.Sprintf("sbgluster-%s-%d", id, i), fmt.Sprintf("sg%sh%d", id, i), fmt.Sprintf("sg%sn%d", id, i)
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
