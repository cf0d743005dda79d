package fio_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A phase whose files cannot fit in the free space of DIR is refused in
// one line, exit 2, before fio writes anything (issue 21: --size 100000T
// was accepted and fio wrote until the disk was full).
func TestFilesPastFreeSpaceRefused(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
	}{
		{"size flag", []string{"-w", "default", "--size", "100000T"}},
		{"numjobs flag", []string{"-w", "default", "--size", "1T", "--numjobs", "2000"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out := runBin(t, append([]string{"fio", "-d", dir, "--runtime", "1s", "--results", t.TempDir()}, c.args...)...)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			last := lines[len(lines)-1]
			if code != 2 || !strings.Contains(last, "lays out at least") || !strings.Contains(last, "free") {
				t.Errorf("exit %d, want 2 and a line saying the files do not fit:\n%s", code, out)
			}
			if got := tree(dir); len(got) != 0 {
				t.Errorf("DIR holds %v", got)
			}
		})
	}
}

// On a small file system (a 16 MiB tmpfs), a job file whose one section
// alone needs 64 MiB is refused; one that fits runs.
func TestFilesPastFreeSpaceOnSmallFS(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a 16 MiB tmpfs (run the tests as root to cover a small file system)")
	}
	work := t.TempDir()
	mnt := filepath.Join(work, "mnt")
	_ = os.Mkdir(mnt, 0o755)
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("mount tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", mnt).Run() })
	job := func(size string) string {
		p := filepath.Join(work, size+".fio")
		_ = os.WriteFile(p, []byte("[global]\nioengine=psync\nbs=64k\nnumjobs=4\nsize="+size+"\n[w]\nrw=write\n"), 0o644)
		return p
	}
	code, out := runBin(t, "fio", "-d", mnt, "-w", job("16m"), "--results", filepath.Join(work, "r1"))
	if code != 2 || !strings.Contains(out, "lays out at least 64.0 MiB") {
		t.Errorf("4 jobs of 16 MiB on 16 MiB: exit %d, want 2 and the size:\n%s", code, out)
	}
	if code, out := runBin(t, "fio", "-d", mnt, "-w", job("1m"), "--results", filepath.Join(work, "r2")); code != 0 {
		t.Errorf("4 jobs of 1 MiB on 16 MiB: exit %d:\n%s", code, out)
	}
}
