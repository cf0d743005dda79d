package cluster_test

// Issue 12: shared file systems measured as shared, with real agent
// processes: fio's shared and read_from phases across three agents on one
// file system, and the shared-area probe against agents that each see a
// file system of their own at the run's directory (mount namespaces).

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	sbcluster "github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/s3test"
)

func sharedExample(t *testing.T) string {
	t.Helper()
	root, err := s3test.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "examples", "shared-fio.yaml")
}

// examples/shared-fio.yaml on three agents sharing one directory: the
// probe passes, IOR-hard's shared file holds hosts x jobs x transfers x
// 47,008 bytes (2 jobs, 50 transfers), the read phases - each host reading
// its neighbour's files and blocks - pass fio's crc32c verification, and
// without --keep nothing of the run is left in DIR.
func TestClusterSharedFio(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed")
	}
	topologies(t, 3, func(t *testing.T, tp *topology) {
		c := startCluster(t, tp, nil, nil)
		names := sbcluster.HostNames(tp.addrs)
		data := tmpfsDir(t)
		code, out := c.run(t, "run", sharedExample(t), "-d", data, "--keep")
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		if !strings.Contains(out, "the 3 hosts of the shared phases see one file system at "+data) {
			t.Errorf("no word of the probe:\n%s", out)
		}
		folder := folderOf(t, out)
		s := summaryOf(t, folder)
		ri, err := results.ReadRunInfo(folder)
		if err != nil {
			t.Fatal(err)
		}
		const want = 3 * 2 * 50 * 47008
		fi, err := os.Stat(filepath.Join(data, "storbench", ri.RunID, "shared", "fio", "ior-hard"))
		if err != nil || fi.Size() != want {
			t.Fatalf("the shared file: %v (size %d), want %d bytes = 3 hosts x 2 jobs x 50 transfers x 47008", err, sizeOf(fi), want)
		}
		t.Logf("ior-hard's shared file: %d bytes", fi.Size())
		byName := map[string]results.PhaseSummary{}
		for _, ph := range s.Phases {
			byName[ph.Name] = ph
			if ph.Status != results.StatusCompleted || len(ph.PerHost) != 3 {
				t.Errorf("phase %s: %s on %d hosts: %s", ph.Name, ph.Status, len(ph.PerHost), ph.Error)
			}
		}
		for phase, op := range map[string]string{"ior-hard-write": "write", "ior-hard-read": "read"} {
			ph := byName[phase]
			if len(ph.Ops) != 1 || ph.Ops[0].Op != op || ph.Ops[0].Bytes != want {
				t.Errorf("%s: %+v, want %d bytes %s (verified when read)", phase, ph.Ops, want, op)
			}
		}
		// Each host read its neighbour's ior-easy files.
		ph := byName["ior-easy-read"]
		for i, h := range names {
			job, err := os.ReadFile(filepath.Join(folder, ph.Dir, "hosts", h, "ior-easy-read.fio"))
			if err != nil {
				t.Fatal(err)
			}
			from := names[(i+1)%len(names)]
			if !strings.Contains(string(job), "/shared/fio-"+from+"\n") || !strings.Contains(string(job), "verify=crc32c") {
				t.Errorf("%s's read job does not read %s's files with verification:\n%s", h, from, job)
			}
		}
		if tp.name != "loopback" {
			return // cleaning up across agents does not depend on the network
		}
		data2 := tmpfsDir(t)
		if code, out := c.run(t, "run", sharedExample(t), "-d", data2); code != 0 {
			t.Fatalf("without --keep: exit %d:\n%s", code, out)
		}
		if ents, _ := os.ReadDir(data2); len(ents) != 0 {
			t.Errorf("DIR holds %v after the run", ents)
		}
	})
}

func sizeOf(fi os.FileInfo) int64 {
	if fi == nil {
		return -1
	}
	return fi.Size()
}

// withPrivateTmpfs starts the agents i for which private says so in a
// mount namespace of their own, with a tmpfs of their own mounted at dir:
// a host that sees another file system at the run's directory than the
// others (a local disk where the shared one should be).
func withPrivateTmpfs(t *testing.T, tp *topology, dir string, private func(i int) bool) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("agents with a file system of their own need root (unshare -m, mount -t tmpfs); the probe's verdict runs without root in TestProveSharedNamesHostsOnAnotherFileSystem")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("util-linux's unshare is not installed")
	}
	inner := tp.wrap
	tp.wrap = func(i int, args []string) []string {
		if !private(i) {
			return inner(i, args)
		}
		return inner(i, append([]string{"unshare", "--mount", "--propagation", "private",
			"sh", "-c", `mount -t tmpfs -o size=64m storbench-test "$0" && exec "$@"`, dir}, args...))
	}
}

// The must-show: agents in private mount namespaces, each with its own
// tmpfs at the same path, are refused before any load, and the error names
// the hosts that see another file system: every agent on its own, and one
// agent on its own among two that share. No results folder is made, no
// phase reaches an agent, and no file system keeps anything of the probe.
func TestClusterSharedAreaProbe(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed")
	}
	for _, tc := range []struct {
		name    string
		private func(i int) bool
		want    func(names []string) string
	}{
		{"every agent on its own tmpfs", func(int) bool { return true }, func(n []string) string {
			return fmt.Sprintf("%s, %s see another file system at DIR than %s", n[1], n[2], n[0])
		}},
		{"one agent on its own tmpfs", func(i int) bool { return i == 2 }, func(n []string) string {
			return fmt.Sprintf("%s sees another file system at DIR than %s, %s", n[2], n[0], n[1])
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			topologies(t, 3, func(t *testing.T, tp *topology) {
				data := t.TempDir()
				withPrivateTmpfs(t, tp, data, tc.private)
				c := startCluster(t, tp, nil, nil)
				for i, a := range c.agents {
					b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/mountinfo", a.cmd.Process.Pid))
					if has := strings.Contains(string(b), " "+data+" "); has != tc.private(i) {
						t.Fatalf("agent %d: a file system of its own at DIR: %v, want %v", i, has, tc.private(i))
					}
				}
				code, out := c.run(t, "run", sharedExample(t), "-d", data)
				t.Logf("storbench run: exit %d\n%s", code, out)
				msg := strings.ReplaceAll(out, data, "DIR")
				if code != 2 || !strings.Contains(msg, "phase ior-easy-write needs its hosts to share one file system: ") || !strings.Contains(msg, tc.want(sbcluster.HostNames(tp.addrs))) {
					t.Fatalf("exit %d, want 2 naming the hosts (%q):\n%s", code, tc.want(sbcluster.HostNames(tp.addrs)), out)
				}
				if strings.Contains(out, "starting fio phase") || strings.Contains(out, "results in") {
					t.Errorf("load started or a results folder was made:\n%s", out)
				}
				if ents, _ := os.ReadDir(filepath.Join(c.dir, "results")); len(ents) != 0 {
					t.Errorf("results folders %v", ents)
				}
				for i, a := range c.agents {
					for _, l := range a.log() {
						if strings.Contains(l.text, "phase ior-") {
							t.Errorf("agent %d was given a phase: %s", i, l.text)
						}
					}
					// The agent's own view of DIR, through its mount namespace.
					own := filepath.Join(fmt.Sprintf("/proc/%d/root", a.cmd.Process.Pid), data)
					if ents, err := os.ReadDir(own); err != nil || len(ents) != 0 {
						t.Errorf("agent %d's DIR holds %v (%v) after the probe", i, ents, err)
					}
				}
			})
		})
	}
}
