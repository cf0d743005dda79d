package ceph

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/testutil"
)

// shared is the cluster the tests of one test binary share.
var shared struct {
	sync.Mutex
	started bool
	opts    Options
	c       *Cluster
	err     error
}

// Shared returns the cluster the tests of this test binary share, started
// with o by the first test that asks (the set-up is paid once). It skips
// t where Ceph cannot run (Skip) and fails it when the set-up failed. The
// test binary's TestMain must call StopShared after m.Run.
func Shared(t testing.TB, o Options) *Cluster {
	t.Helper()
	Skip(t)
	shared.Lock()
	defer shared.Unlock()
	if !shared.started {
		shared.started, shared.opts = true, o
		shared.c, shared.err = start(o)
		if shared.err == nil {
			t.Logf("Ceph: %s in %.1f s (%s)", shared.c.describe(), shared.c.Setup.Seconds(), strings.Join(shared.c.Steps, ", "))
		}
	}
	if shared.opts != o {
		t.Fatalf("ceph.Shared: this test binary's cluster runs with %+v, not %+v", shared.opts, o)
	}
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.c
}

// StopShared tears down the cluster Shared started, if any, and returns
// what the teardown left behind: TestMain fails the test binary with it.
func StopShared() error {
	shared.Lock()
	defer shared.Unlock()
	if shared.c == nil {
		return nil
	}
	err := shared.c.teardown()
	shared.c, shared.err = nil, fmt.Errorf("ceph.Shared: the cluster was torn down")
	return err
}

// machineLock holds the machine-wide Ceph lock while a cluster runs: one
// Ceph at a time on this machine (test binaries that each start one wait
// for each other, at most 15 minutes), so a set-up's time is its own, not
// shared with another cluster's. It leaves no file (testutil.MachineLock).
func machineLock() (unlock func(), err error) {
	return testutil.MachineLock("storbench-ceph", 15*time.Minute)
}
