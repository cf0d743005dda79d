package gluster_test

// The WEKA mdtest line translated to four GlusterFS clients: md -N 1, so
// that every item stat'ed, read and removed was created by another client
// (through another FUSE client process with its own cache).

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/testutil/gluster"
)

var resultsRE = regexp.MustCompile(`results in (\S+)`)

// summaryOf reads the summary.json of the run whose output is out.
func summaryOf(t *testing.T, out string) (*results.Summary, string) {
	t.Helper()
	m := resultsRE.FindAllStringSubmatch(out, -1)
	if len(m) == 0 {
		t.Fatalf("no results folder in the output:\n%s", out)
	}
	folder := m[len(m)-1][1]
	s, err := results.ReadSummary(folder)
	if err != nil {
		t.Fatal(err)
	}
	return s, folder
}

// mdN1 runs md -N 1 with items files per worker on every agent of c and
// checks what a user reads in summary.json: the phase completed on every
// host without errors, and every stat, read and remove worked on an item
// another client created (cross_host_items equals the count).
func mdN1(t *testing.T, c *gluster.Cluster, items int) *results.PhaseSummary {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	code, out := c.Run(ctx, "md", "-d", c.Dir, "-t", "1", "-n", fmt.Sprint(items), "-F", "-N", "1", "--write-bytes", "4k", "--read-bytes", "4k")
	if code != 0 {
		t.Fatalf("md -N 1: exit %d:\n%s", code, out)
	}
	s, _ := summaryOf(t, out)
	ph := &s.Phases[0]
	if ph.Status != results.StatusCompleted || len(ph.PerHost) != len(c.Agents) {
		t.Fatalf("md: %s on %d hosts: %s", ph.Status, len(ph.PerHost), ph.Error)
	}
	want := uint64(len(c.Agents) * items)
	seen := map[string]bool{}
	for _, o := range ph.Ops {
		if o.Errors != 0 {
			t.Errorf("%s: %d errors %v", o.Op, o.Errors, o.ErrorKinds)
		}
		switch o.Op {
		case "file-stat", "file-read", "file-remove":
			seen[o.Op] = true
			if o.Ops != want || o.CrossHostItems == nil || *o.CrossHostItems != o.Ops {
				t.Errorf("%s: %d items, %v created by another client; want %d, all by another client", o.Op, o.Ops, o.CrossHostItems, want)
			}
		}
	}
	if len(seen) != 3 {
		t.Errorf("operations stat, read, remove not all measured: %v", seen)
	}
	if !strings.Contains(out, fmt.Sprintf("file-stat %d of %d", want, want)) {
		t.Errorf("the text does not say every item came from another client:\n%s", out)
	}
	return ph
}

// The smoke make test runs: four GlusterFS clients, each agent in its
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
	ownClients(t, c)
	mdN1(t, c, 100)
}

// ownClients checks that every agent, in its own mount namespace, sees
// a GlusterFS client of its own at c.Dir.
func ownClients(t *testing.T, c *gluster.Cluster) {
	t.Helper()
	devs := map[string]bool{}
	for i := range c.Agents {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/mountinfo", c.AgentPid(i)))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) > 4 && f[4] == c.Dir {
				if !strings.Contains(l, " - fuse.glusterfs ") {
					t.Fatalf("agent %d sees %s at %s, not a GlusterFS client", i, l, c.Dir)
				}
				devs[f[2]] = true
			}
		}
	}
	if len(devs) != len(c.Agents) {
		t.Fatalf("the agents see %d distinct clients at %s, want %d", len(devs), c.Dir, len(c.Agents))
	}
}
