package ceph

import (
	"os"
	"testing"
)

// The lock that keeps two Ceph clusters from running at once leaves no
// file behind: it was /tmp/storbench-ceph.lock, there for good after the
// first cluster test (make cluster-test must leave nothing in /tmp).
func TestMachineLockLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	unlock, err := machineLock()
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("the lock left %s in the temporary directory", ents[0].Name())
	}
}
