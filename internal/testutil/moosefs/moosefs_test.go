package moosefs_test

import (
	"os"
	"testing"

	"github.com/storbench/storbench/internal/testutil/dfs"
	"github.com/storbench/storbench/internal/testutil/moosefs"
)

// The smoke make test runs: a master, two chunkservers and three clients,
// each agent in its own mount namespace sees its own client at one path,
// one md -N 1 run passes, and the teardown leaves nothing (checked in the
// cleanup). make cluster-test skips it: TestMooseFS checks the same and
// more.
func TestMooseFSSmoke(t *testing.T) {
	if os.Getenv(dfs.FullEnv) == "1" {
		t.Skip("make cluster-test: TestMooseFS checks the same")
	}
	c := moosefs.Start(t, 0)
	dfs.OwnClients(t, c.Cluster)
	dfs.MdShared(t, c.Cluster, 100)
}

// The seeds' procedures on MooseFS from three clients (dfs.Procedures),
// then a chunkserver that hangs during a write phase and goes on.
func TestMooseFS(t *testing.T) {
	dfs.Full(t)
	c := moosefs.Start(t, 0)
	dfs.OwnClients(t, c.Cluster)
	dfs.Procedures(t, c.Cluster)
	t.Run("chunkserver-hang", func(t *testing.T) { chunkserverHang(t, c) })
}

// A chunkserver stopped 5 s into a write phase and let go on at 10 s:
// every chunk has a copy on it (goal 2), so every write waits for it
// until it goes on, and the clients write on at once, catching up (the
// dip from 5 s to 10 s, the recovery at 10 s; dfs.ServerFault holds them
// against the test's own times). It is stopped (SIGSTOP) rather than
// killed: killed, it costs the clients nothing they would notice (the
// connection resets, and they write on to the other copy), and started
// again it stalls the writes a second time, about 3 s from about 1 s
// after it connected to the master (measured here): a recovery no
// timestamp of the test can place.
func chunkserverHang(t *testing.T, c *moosefs.Cluster) {
	dfs.ServerFault(t, c.Cluster, dfs.Fault{StopName: "hang chunkserver 1", RestartName: "resume chunkserver 1", Phase: dfs.HungServerPhase, Op: "write",
		Stop: func() error { return c.HangChunkserver(1) }, Restart: func() error { return c.ResumeChunkserver(1) }})
}

// What the clients' caches give md on MooseFS (docs/run.md's table):
// with STORBENCH_CACHE_ROUNDS set, that many rounds of md on each
// client's own items and on another's.
func TestMooseFSCacheRates(t *testing.T) {
	rounds := dfs.CacheRounds(t)
	c := moosefs.Start(t, 0)
	dfs.CacheRates(t, c.Cluster, 500, rounds)
}
