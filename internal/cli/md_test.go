package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestMdCommand runs `storbench md` end to end: the mdtest table on stdout,
// summary.json with per-iteration rates for every operation, mdtest's
// letters for the syncs (-y each file, -Y every file system) in run.json,
// find's found count (both iterations': 2 x 22) in the text and summary.json,
// and an empty target afterwards.
func TestMdCommand(t *testing.T) {
	t.Parallel()
	st, out := testState()
	dir, resDir := t.TempDir(), t.TempDir()
	err := Execute(context.Background(), st, []string{"md", "-d", dir, "-n", "50", "-i", "2", "-t", "2", "-u",
		"-z", "1", "-b", "2", "--write-bytes", "1k", "--read-bytes", "1k", "--rename", "-y", "-Y", "--find", "--find-name", "f.1*", "--results", resDir})
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"Max", "Min", "Mean", "Std Dev", "p99.9", "file-create", "tree-remove", "completed", "find found 44 of 208 entries"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	folders, _ := filepath.Glob(filepath.Join(resDir, "*_md", "summary.json"))
	if len(folders) != 1 {
		t.Fatalf("summary.json: %v", folders)
	}
	run, _ := os.ReadFile(filepath.Join(filepath.Dir(folders[0]), "run.json"))
	for _, want := range []string{`"sync": true`, `"sync_file": true`} {
		if !strings.Contains(string(run), want) {
			t.Errorf("run.json lacks %s", want)
		}
	}
	b, _ := os.ReadFile(folders[0])
	for _, want := range []string{`"engine": "md"`, `"op": "file-rename"`, `"found": 44`, `"per_iteration_ops_per_s"`, `"stddev_ops_per_s"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("summary.json lacks %s", want)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("target not empty afterwards: %v", left)
	}
}

// TestMdBadInput refuses bad flags with one line and the usage exit code,
// before creating anything.
func TestMdBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-d", filepath.Join(dir, "missing")}, "does not exist"},
		{[]string{"-d", dir, "-n", "0"}, "-n/--items 0: zero makes no sense"},
		{[]string{"-d", dir, "-n", "-3"}, "items (-n) must be at least 1"},
		{[]string{"-d", dir, "-z", "8", "-b", "10"}, "--force"},
		{[]string{"-d", dir, "-F", "-D"}, "exclude each other"},
		{[]string{"-d", dir, "--write-bytes", "lots"}, "--write-bytes"},
		{[]string{"-d", dir, "-W", "soon"}, "--stonewall"},
		{[]string{"-d", dir, "--wear-out"}, "--wear-out goes with -W/--stonewall"},
		{[]string{"-d", dir, "--wear-out=false"}, "--wear-out goes with -W/--stonewall"},
	} {
		st, out := testState()
		err := Execute(context.Background(), st, append([]string{"md", "--results", t.TempDir()}, tc.args...))
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != ExitUsage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err %v, want usage error mentioning %q\n%s", tc.args, err, tc.want, out)
		}
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("bad input created %v", left)
	}
}

// TestMdDiskFull runs out of inodes mid-phase: the table still shows what
// finished, summary.json counts ENOSPC, the run exits as failed, and the
// target is left empty.
func TestMdDiskFull(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs (CI runs as root)")
	}
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=1m,nr_inodes=200"); err != nil {
		t.Skipf("cannot mount tmpfs: %v", err)
	}
	defer syscall.Unmount(dir, syscall.MNT_DETACH)
	st, out := testState()
	resDir := t.TempDir()
	err := Execute(context.Background(), st, []string{"md", "-d", dir, "-n", "500", "-t", "2", "-u", "--results", resDir})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitFailed || !strings.Contains(err.Error(), "ENOSPC") {
		t.Fatalf("err %v, want a failed run naming ENOSPC\n%s", err, out)
	}
	if !strings.Contains(out.String(), "dir-create") || !strings.Contains(out.String(), "tree-remove") {
		t.Errorf("output lacks the operations that finished:\n%s", out)
	}
	sums, _ := filepath.Glob(filepath.Join(resDir, "*_md", "summary.json"))
	if len(sums) != 1 {
		t.Fatalf("summary.json: %v", sums)
	}
	b, _ := os.ReadFile(sums[0])
	if !strings.Contains(string(b), `"ENOSPC"`) || !strings.Contains(string(b), `"status": "failed"`) {
		t.Errorf("summary.json lacks the ENOSPC count or failed status:\n%.2000s", b)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("target not empty afterwards: %v", left)
	}
}
