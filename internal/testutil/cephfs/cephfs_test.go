package cephfs_test

import (
	"testing"

	"github.com/storbench/storbench/internal/testutil/cephfs"
	"github.com/storbench/storbench/internal/testutil/dfs"
)

// The seeds' procedures on CephFS from three ceph-fuse clients
// (dfs.Procedures), then its metadata server killed during a phase and
// started again.
func TestCephFS(t *testing.T) {
	dfs.Full(t)
	c := cephfs.Start(t, 0)
	dfs.OwnClients(t, c.Cluster)
	dfs.Procedures(t, c.Cluster)
	t.Run("mds-restart", func(t *testing.T) { mdsRestart(t, c) })
}

// The MDS killed 5 s into a synced write phase and started again at 10 s:
// a client's fsync waits for the MDS (it flushes the file's metadata
// there), so no write is done until the MDS is active again, about 3 s
// after its start (replay, reconnect, rejoin), and the clients write on
// at once (dfs.ServerFault holds the dip and the recovery against the
// test's own times, the restart's ending when a write through a client
// returns). Killed during a phase of creates instead, the MDS came back
// 8-14 s after its start: it replays its journal of the creates, then
// the clients' creates it had not answered.
func mdsRestart(t *testing.T, c *cephfs.Cluster) {
	dfs.ServerFault(t, c.Cluster, dfs.Fault{StopName: "kill MDS", RestartName: "start MDS", Phase: dfs.SyncedWritePhase, Op: "write",
		Stop: c.Ceph.StopMDS, Restart: c.Ceph.StartMDS})
}

// What the clients' caches give md on CephFS (docs/run.md's table): with
// STORBENCH_CACHE_ROUNDS set, that many rounds of md on each client's own
// items and on another's.
func TestCephFSCacheRates(t *testing.T) {
	rounds := dfs.CacheRounds(t)
	c := cephfs.Start(t, 0)
	dfs.CacheRates(t, c.Cluster, 500, rounds)
}
