package fio

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/model"
	"github.com/storbench/storbench/internal/testutil"
)

// smallFS mounts a tmpfs of size (root only) and returns its path.
func smallFS(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs (run the tests as root to cover a full file system)")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("mount tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", mnt).Run() })
	return mnt
}

// Issue 21 item 3: files of an earlier phase still being removed in the
// background hold space that is free by the time this phase starts. A
// plan that fits only once they are gone waits for their removal
// (engine.Env.AwaitRemovals) and runs; it is not refused, and the space
// is not counted as free before it is.
func TestSpaceOfPendingRemovalsAwaited(t *testing.T) {
	if _, err := FindFio(""); err != nil {
		t.Skip(err)
	}
	mnt := smallFS(t, "32m")
	// The earlier phase's files: 24 MiB of 32, removed only when awaited.
	earlier := filepath.Join(mnt, "earlier")
	if err := os.WriteFile(earlier, make([]byte, 24<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	awaited := 0
	env := engine.Env{Host: "h", RunID: "space", AwaitRemovals: func(context.Context) {
		awaited++
		_ = os.Remove(earlier)
	}}
	p := fioPhase(t, mnt, "next", "[global]\nioengine=psync\nbs=64k\nsize=16m\n[w]\nrw=write\n", Overrides{})
	prep, err := Engine{}.Prepare(testutil.Ctx(t, testutil.Bound), env, p)
	if err != nil {
		t.Fatalf("a plan that fits once the earlier files are removed was refused: %v", err)
	}
	defer prep.Cleanup(context.Background())
	if awaited != 1 {
		t.Errorf("the removal was awaited %d times, want once", awaited)
	}
	// Space still taken, and nothing pending to free it: refused.
	if err := os.WriteFile(earlier, make([]byte, 24<<20), 0o644); err != nil {
		t.Skip("the tmpfs is full already:", err)
	}
	defer os.Remove(earlier)
	_, err = Engine{}.Prepare(testutil.Ctx(t, testutil.Bound), engine.Env{Host: "h", RunID: "space2"}, p)
	if err == nil || !strings.Contains(err.Error(), "lays out at least") {
		t.Errorf("16 MiB on a file system with less free was not refused: %v", err)
	}
}

// Issue 21 item 3: where the file system cannot tell its free space
// (statfs reports no blocks: procfs does, as some FUSE and network file
// systems do), the check says so in one line instead of refusing or
// passing in silence.
func TestSpaceUnknownSaysSo(t *testing.T) {
	p := fioPhase(t, "/proc", "j", "[global]\nsize=1g\n[w]\nrw=write\n", Overrides{})
	note, err := CheckSpace(p, 1)
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	if !strings.Contains(note, "does not tell its free space") || strings.Contains(note, "\n") {
		t.Errorf("note %q, want one line saying the free space is unknown", note)
	}
}

// fakeNFS is a fake statfs: an NFS mount (no NFS server runs here) of 100
// MiB free.
func fakeNFS(_ string, st *syscall.Statfs_t) error {
	*st = syscall.Statfs_t{Type: 0x6969, Bsize: 1 << 20, Blocks: 1000, Bfree: 100, Bavail: 100}
	return nil
}

// Issue 21 item 3: on a file system several hosts share, every host's
// files count against its one free space; files the hosts share count
// once.
func TestSpaceSharedCountsAllHosts(t *testing.T) {
	old := statfs
	statfs = fakeNFS
	t.Cleanup(func() { statfs = old })
	job := "[global]\nsize=40m\n[w]\nrw=write\n"
	p := fioPhase(t, t.TempDir(), "j", job, Overrides{})
	if _, err := CheckSpace(p, 2); err != nil {
		t.Errorf("2 hosts x 40 MiB on 100 MiB refused: %v", err)
	}
	_, err := CheckSpace(p, 3)
	if err == nil || !strings.Contains(err.Error(), "3 hosts on one NFS file system") || !strings.Contains(err.Error(), "120 MiB") {
		t.Errorf("3 hosts x 40 MiB on 100 MiB: %v, want refused for the 3 hosts together", err)
	}
}

// Issue 21 item 3 on a FUSE client of a networked volume (GlusterFS, as
// the real-cluster tests mount it): the hosts' clients are one file
// system, whichever server each mounted from, so their files count
// together; a local FUSE file system counts per host. FUSE and the
// mount table are faked (statfs, mounts): a Gluster volume's free space
// cannot be set here.
func TestSpaceOnGlusterCountsAllHosts(t *testing.T) {
	oldStat, oldMounts := statfs, mounts
	t.Cleanup(func() { statfs, mounts = oldStat, oldMounts })
	statfs = func(_ string, st *syscall.Statfs_t) error {
		*st = syscall.Statfs_t{Type: fuseMagic, Bsize: 1 << 20, Blocks: 1000, Bfree: 100, Bavail: 100}
		return nil
	}
	dir := t.TempDir()
	job := "[global]\nsize=40m\n[w]\nrw=write\n"
	p := fioPhase(t, dir, "j", job, Overrides{})
	for _, c := range []struct {
		fstype, source string
		shared         bool
	}{
		{"fuse.glusterfs", "node2:/vol", true},
		{"fuse.sshfs", "me@nas:/export", true},
		{"fuse.lxcfs", "lxcfs", false},
		{"fuse", "/dev/fuse", false},
	} {
		mounts = func() []model.Mount {
			return []model.Mount{{Point: "/", FSType: "ext4", Source: "/dev/vda"}, {Point: dir, FSType: c.fstype, Source: c.source}}
		}
		_, err := CheckSpace(p, 3)
		if c.shared && (err == nil || !strings.Contains(err.Error(), "3 hosts on one")) {
			t.Errorf("%s from %s, 3 hosts x 40 MiB on 100 MiB: %v, want refused for the 3 hosts together", c.fstype, c.source, err)
		}
		if !c.shared && err != nil {
			t.Errorf("%s from %s (local FUSE), 40 MiB per host on 100 MiB: refused: %v", c.fstype, c.source, err)
		}
	}
}
