package testutil

import (
	"fmt"
	"net"
	"os/exec"
	"strings"
)

// Subnet is a /24, Prefix.X.0/24, that a test harness claimed for the
// network namespaces it makes (ClaimSubnet).
type Subnet struct {
	// Prefix is the first two octets ("10.201"); X the third.
	Prefix string
	X      int
	lock   net.Listener
}

// Addr is the subnet's address ending in host ("10.201.X.host").
func (s *Subnet) Addr(host int) string { return fmt.Sprintf("%s.%d.%d", s.Prefix, s.X, host) }

// Release gives the claim up: call it once the subnet's addresses are
// gone.
func (s *Subnet) Release() { s.lock.Close() }

// ClaimSubnet claims a third octet X, from 100 to 249, looking first at
// 100+from%150, whose Prefix.X.0/24 no interface of this network
// namespace has and no other test holds. Two bridges on one subnet route
// the namespaces' packets to the wrong one ("no route to host"), and a
// bridge that a killed run left keeps its subnet; two harnesses starting
// at once would both find a subnet free before either adds its address,
// so each claim is also a machine-wide lock (an abstract Unix socket per
// subnet, MachineLock's kind: it goes with its process), held until
// Release, and the addresses are read after the lock is taken.
func ClaimSubnet(prefix string, from int) (*Subnet, error) {
	for k := range 150 {
		x := 100 + (from+k)%150
		l, err := net.Listen("unix", fmt.Sprintf("@storbench-subnet-%s.%d", prefix, x))
		if err != nil {
			continue // another test's
		}
		out, err := exec.Command("ip", "-4", "-o", "addr", "show").CombinedOutput()
		if err != nil {
			l.Close()
			return nil, fmt.Errorf("ip -4 addr show: %v: %s", err, out)
		}
		if !strings.Contains(string(out), fmt.Sprintf(" %s.%d.", prefix, x)) {
			return &Subnet{Prefix: prefix, X: x, lock: l}, nil
		}
		l.Close()
	}
	return nil, fmt.Errorf("every subnet %s.100-249.0/24 is taken here: remove the bridges killed test runs left (ip -4 addr show)", prefix)
}
