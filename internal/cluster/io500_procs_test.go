package cluster_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/s3test"
)

// examples/io500-shapes.yaml on three agents over loopback sharing one
// directory: IO500's twelve phases all complete on the three hosts, the
// IO500-shaped score is printed and in summary.json, mdtest's -N 1 crosses
// hosts where IO500's does (mdtest 3.3+ shifts by the ranks per node: with
// 2 workers on each of 3 hosts, stat and read work on all 1,200 items of
// other hosts, one and two hosts on, and remove, three hosts on, on the
// host's own), find walks the whole data directory and finds files, and
// nothing of the run stays in DIR.
func TestClusterIO500Shapes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("twelve phases across three agents take about 40 s")
	}
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed")
	}
	root, err := s3test.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	c := startCluster(t, loopback(t, 3), nil, nil)
	data := tmpfsDir(t)
	code, out := c.run(t, "run", filepath.Join(root, "examples", "io500-shapes.yaml"), "-d", data)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	s := summaryOf(t, folderOf(t, out))
	if len(s.Phases) != len(model.IO500Phases) {
		t.Errorf("%d phases, want IO500's %d", len(s.Phases), len(model.IO500Phases))
	}
	for i, ph := range s.Phases {
		if ph.Status != results.StatusCompleted || len(ph.PerHost) != 3 || ph.Name != model.IO500Phases[i].Name {
			t.Errorf("phase %d %s: %s on %d hosts: %s", i, ph.Name, ph.Status, len(ph.PerHost), ph.Error)
		}
		if ph.Name == "find" {
			// mdtest-hard's files of 3,901 bytes named *01*, newer than
			// the run's start, among everything in the data directory.
			if len(ph.Ops) != 1 || ph.Ops[0].Found == nil || *ph.Ops[0].Found == 0 || ph.Ops[0].Ops < 2400 {
				t.Errorf("find: %+v; want found files among the 2,400 md files and more", ph.Ops)
			}
		}
		if ph.Engine != "md" || ph.Name == "find" || strings.HasSuffix(ph.Name, "-write") {
			continue
		}
		for _, o := range ph.Ops {
			cross := uint64(1200)
			if o.Op == "file-remove" {
				cross = 0
			}
			if strings.HasPrefix(o.Op, "file-") && (o.Ops != 1200 || o.CrossHostItems == nil || *o.CrossHostItems != cross) {
				t.Errorf("%s %s: %d items, %s from another host; want 1200, %d", ph.Name, o.Op, o.Ops, count(o.CrossHostItems), cross)
			}
		}
	}
	sc := s.IO500
	if sc == nil || sc.Score == nil || len(sc.Missing) != 0 {
		t.Fatalf("no IO500-shaped score: %+v", sc)
	}
	t.Logf("3 agents: storbench's IO500-shaped score %.3f (bandwidth %.3f GiB/s, metadata %.3f kIOPS)", *sc.Score, *sc.BandwidthGiB, *sc.MetadataKIOPS)
	if !strings.Contains(out, "storbench's IO500-shaped score (not an IO500 submission):") || !strings.Contains(out, ": score ") {
		t.Errorf("the run did not print the score:\n%s", out)
	}
	if ents, _ := os.ReadDir(data); len(ents) != 0 {
		t.Errorf("DIR holds %v after the run", ents)
	}
}

func count(n *uint64) string {
	if n == nil {
		return "none said"
	}
	return fmt.Sprint(*n)
}
