package testutil

import (
	"fmt"
	"net"
	"time"
)

// MachineLock takes the machine-wide lock named name, waiting at most
// wait for the test binary that holds it, and returns its release. The
// lock is an abstract Unix socket (Linux): it leaves no file, and it goes
// with its process, however that ends. Test harnesses that must not run
// twice at once on a machine take one (a port or a system directory of
// their own, or a set-up whose time must be its own).
func MachineLock(name string, wait time.Duration) (func(), error) {
	deadline := time.Now().Add(wait)
	for {
		l, err := net.Listen("unix", "@"+name)
		if err == nil {
			return func() { l.Close() }, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("another test held the lock %s for %v: %v", name, wait, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
