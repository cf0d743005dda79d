// Package cephfs brings up a real CephFS on this machine for tests (the
// dfs harness's FS): the ceph harness's cluster (a monitor and an OSD)
// with a metadata server and a file system (ceph.Options.FS), and one
// ceph-fuse client per agent (the kernel here has no ceph module).
package cephfs

import (
	"fmt"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/testutil/ceph"
	"github.com/storbench/storbench/internal/testutil/dfs"
)

// Skip skips t where CephFS cannot run here.
func Skip(t testing.TB) {
	t.Helper()
	ceph.Skip(t)
	dfs.Skip(t, "CephFS", "install ceph-mds and ceph-fuse (make ceph)", "ceph-mds", "ceph-fuse")
}

// Cluster is a running CephFS with its clients and agents.
type Cluster struct {
	*dfs.Cluster
	// Ceph is the Ceph cluster under the file system.
	Ceph *ceph.Cluster
}

// Start brings up CephFS with agents clients (0: dfs's default) for the
// life of t, skipping t where it cannot run. The Ceph cluster starts
// first, so that its teardown comes after the harness's (agents, mounts,
// clients).
func Start(t testing.TB, agents int) *Cluster {
	t.Helper()
	Skip(t)
	cc := ceph.Start(t, ceph.Options{FS: true})
	c := &Cluster{Cluster: dfs.Start(t, &FS{ceph: cc}, dfs.Options{Agents: agents}), Ceph: cc}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the clients' logs:\n%s", dfs.Tails(cc.Root+"/log/client.*", cc.Root+"/log/mds.a.log"))
		}
	})
	return c
}

// FS is CephFS as the dfs harness starts it, on a running Ceph cluster.
type FS struct{ ceph *ceph.Cluster }

var _ dfs.FS = (*FS)(nil)

// Name is "CephFS".
func (*FS) Name() string { return "CephFS" }

// MountType is a ceph-fuse client in mountinfo.
func (*FS) MountType() string { return "fuse.ceph-fuse " }

// Start does nothing: the Ceph cluster is up (Start).
func (*FS) Start(*dfs.Cluster) {}

// Mount starts ceph-fuse client I at mp.
func (f *FS) Mount(_ *dfs.Cluster, i int, mp string) (int, error) {
	cmd, done, err := f.ceph.Mount(fmt.Sprintf("fuse%d", i), mp)
	if err != nil {
		return 0, fmt.Errorf("ceph-fuse: %v", err)
	}
	if err := dfs.WaitMounted(mp, time.Minute, done); err != nil {
		return 0, fmt.Errorf("ceph-fuse: %v", err)
	}
	return cmd.Process.Pid, nil
}

// Stop does nothing: the Ceph cluster's own teardown comes after the
// harness's.
func (*FS) Stop(*dfs.Cluster) {}

// Leftovers: the Ceph cluster's teardown checks its own.
func (*FS) Leftovers(*dfs.Cluster) []string { return nil }
