package gluster_test

// The WEKA mdtest line translated to GlusterFS clients: md -N 1, so that
// every item stat'ed and read was created by another client (through
// another FUSE client process with its own cache).

import (
	"os"
	"testing"

	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/testutil/dfs"
	"github.com/storbench/storbench/internal/testutil/gluster"
)

// mdN1 runs md -N 1 with items files per worker on every agent of c
// (dfs.MdShared).
func mdN1(t *testing.T, c *gluster.Cluster, items int) *results.PhaseSummary {
	t.Helper()
	return dfs.MdShared(t, c.Cluster, items)
}

// The smoke make test runs: three GlusterFS clients, each agent in its
// own mount namespace sees its own client at one path, one md -N 1 run
// passes, and the teardown leaves nothing (checked in the cleanup). make
// cluster-test skips it: TestGlusterDefaultMount checks the same and
// more on a volume of its own, and a volume's set-up and teardown is
// 20-50 s of the 5 minutes it has.
func TestGlusterSmoke(t *testing.T) {
	if os.Getenv(gluster.FullEnv) == "1" {
		t.Skip("make cluster-test: TestGlusterDefaultMount checks the same on its own volume")
	}
	c := gluster.Start(t, gluster.Options{})
	dfs.OwnClients(t, c.Cluster)
	mdN1(t, c, 100)
}
