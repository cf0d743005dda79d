package cluster_test

// Issue 23: hosts that mount one shared namespace at different places,
// each given its own path in the agents file (dir=PATH).

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	sbcluster "github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/results"
)

// Three agents each see the one shared directory at a path of their own
// (host i at DIR/host-i, a link to it), given by dir=PATH in the agents
// file, while -d names a path no host has: the probe proves they share,
// examples/shared-fio.yaml's read-backs pass fio's crc32c checks, each
// host's results and run.json's targets name its own path, and nothing of
// the run is left.
func TestClusterPerHostDir(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed")
	}
	tp := loopback(t, 3)
	c := startCluster(t, tp, nil, nil)
	base := t.TempDir()
	shared := filepath.Join(base, "shared")
	if err := os.Mkdir(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	var lines []string
	var own []string
	for i, addr := range tp.addrs {
		p := filepath.Join(base, fmt.Sprintf("host-%d", i))
		if err := os.Symlink(shared, p); err != nil {
			t.Fatal(err)
		}
		own = append(own, p)
		lines = append(lines, addr+" dir="+p)
	}
	file := filepath.Join(c.dir, "agents")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	nowhere := filepath.Join(base, "not-on-any-host")
	cmd := exec.Command(c.bin, "run", sharedExample(t), "-d", nowhere, "--agents-file", file, "--token-file", c.token, "--results", filepath.Join(c.dir, "results"))
	b, err := cmd.CombinedOutput()
	out := string(b)
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if !strings.Contains(out, "the 3 hosts of the shared phases see one file system at "+nowhere) {
		t.Errorf("no word of the probe:\n%s", out)
	}
	folder := folderOf(t, out)
	s := summaryOf(t, folder)
	names := sbcluster.HostNames(tp.addrs)
	for _, ph := range s.Phases {
		if ph.Status != results.StatusCompleted || len(ph.PerHost) != 3 {
			t.Errorf("phase %s: %s on %d hosts: %s", ph.Name, ph.Status, len(ph.PerHost), ph.Error)
		}
		for i, h := range names {
			job, err := os.ReadFile(filepath.Join(folder, ph.Dir, "hosts", h, ph.Name+".fio"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(job), "directory="+own[i]+"/storbench/") {
				t.Errorf("%s: %s's job does not work under its own path %s:\n%s", ph.Name, h, own[i], job)
			}
		}
	}
	ri, err := results.ReadRunInfo(folder)
	if err != nil {
		t.Fatal(err)
	}
	if len(ri.Targets) != 3 {
		t.Fatalf("targets %+v", ri.Targets)
	}
	for i, tg := range ri.Targets {
		if tg.Host != names[i] || tg.Dir != shared {
			t.Errorf("target %d: %+v, want %s at %s (its link resolved)", i, tg, names[i], shared)
		}
	}
	if ents, _ := os.ReadDir(shared); len(ents) != 0 {
		t.Errorf("the shared directory holds %v after the run", ents)
	}
	if _, err := os.Stat(nowhere); err == nil {
		t.Errorf("%s was made on this machine", nowhere)
	}
}
