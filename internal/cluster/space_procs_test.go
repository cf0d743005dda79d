package cluster_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// smallTmpfs mounts a tmpfs of size (as mount's size=) for the test, as
// root; it skips otherwise.
func smallTmpfs(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs the agents share (run the tests as root to cover a full shared file system)")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("mount tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", mnt).Run() })
	return mnt
}

// fioSuite writes a suite of one fio phase writing size on each host of
// DIR dir, with the options given.
func fioSuite(t *testing.T, dir, size string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "suite.yaml")
	s := "name: space\ndir: " + dir + "\nphases:\n  - fio: {job: {rw: write, bs: 1m, size: " + size + ", ioengine: psync}}\n"
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// lastLine is the last line of out.
func lastLine(out string) string {
	out = strings.TrimSpace(out)
	return out[strings.LastIndex(out, "\n")+1:]
}

// Issue 21 item 3: two agents lay out their files on one file system (a
// 32 MiB tmpfs on this machine), so their plans count together against
// its one free space. Each host's 20 MiB fits alone, the two together do
// not: the run and its --dry-run refuse in one line naming both hosts,
// exit 2, before anything is made (each host used to check its own 20
// MiB, and the second laid out into a full file system). 2 x 12 MiB runs.
func TestSpaceOfHostsOnOneFileSystem(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed")
	}
	mnt := smallTmpfs(t, "32m")
	c := startCluster(t, loopback(t, 2), nil, nil)
	suite := fioSuite(t, mnt, "20m")
	for _, dry := range []bool{false, true} {
		args := []string{"run", suite}
		if dry {
			args = append(args, "--dry-run")
		}
		code, out := c.run(t, args...)
		last := lastLine(out)
		if code != 2 || !strings.Contains(last, "lays out at least 40.0 MiB") || !strings.Contains(last, "one tmpfs file system") {
			t.Errorf("dry run %v: 2 hosts x 20 MiB on 32 MiB: exit %d, want 2 and one line for both hosts together:\n%s", dry, code, out)
		}
		for _, a := range c.tp.addrs {
			// Hosts on one address are named with their port.
			if _, port, _ := strings.Cut(a, ":"); !strings.Contains(last, port) {
				t.Errorf("dry run %v: the refusal does not name host %s: %s", dry, a, last)
			}
		}
		if ents, _ := os.ReadDir(mnt); len(ents) != 0 {
			t.Errorf("dry run %v: DIR holds %v after a refusal", dry, ents)
		}
	}
	if code, out := c.run(t, "run", fioSuite(t, mnt, "12m")); code != 0 {
		t.Errorf("2 hosts x 12 MiB on 32 MiB: exit %d:\n%s", code, out)
	}
}

// Issue 21 item 3, with agents: where an agent's file system does not
// tell its free space (procfs reports no blocks, as some FUSE and
// network file systems do), --dry-run says so for each host, asked on
// that host; it used to check this machine only, and not at all with
// agents.
func TestSpaceUnknownOnAgentsSaysSo(t *testing.T) {
	t.Parallel()
	c := startCluster(t, loopback(t, 2), nil, nil)
	code, out := c.run(t, "run", fioSuite(t, "/proc", "1g"), "--dry-run")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, a := range c.tp.addrs {
		_, port, _ := strings.Cut(a, ":")
		found := false
		for _, l := range strings.Split(out, "\n") {
			found = found || strings.Contains(l, "does not tell its free space") && strings.Contains(l, port)
		}
		if !found {
			t.Errorf("no note that host %s's file system does not tell its free space:\n%s", a, out)
		}
	}
}
