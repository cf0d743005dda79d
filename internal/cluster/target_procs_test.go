package cluster_test

// Issue 23: run.json records the target file system each agent sees, not
// the controller's.

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	sbcluster "github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/results"
)

// Three agents, each with a tmpfs of its own mounted at DIR in its mount
// namespace, while the controller's DIR is a plain directory of its own
// file system: run.json lists a target per host, each with the agent's
// tmpfs (its source and options), none with the controller's file system.
func TestRunRecordsEachAgentsTarget(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed")
	}
	tp := loopback(t, 3)
	data := t.TempDir()
	withPrivateTmpfs(t, tp, data, func(int) bool { return true })
	c := startCluster(t, tp, nil, nil)
	code, out := c.run(t, "md", "-d", data, "-n", "10", "-t", "1", "-F", "-u")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	ri, err := results.ReadRunInfo(folderOf(t, out))
	if err != nil {
		t.Fatal(err)
	}
	names := sbcluster.HostNames(tp.addrs)
	if len(ri.Targets) != len(names) {
		t.Fatalf("run.json's targets: %+v, want one per host %v", ri.Targets, names)
	}
	for i, tg := range ri.Targets {
		if tg.Host != names[i] || tg.Dir != data || tg.FSType != "tmpfs" || tg.Source != "storbench-test" || tg.Mount != data || !strings.Contains(tg.Options, "size=") {
			t.Errorf("target %d: %+v, want %s's tmpfs storbench-test at %s with its options", i, tg, names[i], data)
		}
	}
	if st, err := os.Stat(data); err != nil || !st.IsDir() {
		t.Fatal(err)
	}
}
