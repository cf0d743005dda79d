package cli

import (
	"context"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// IOR reads what ior-easy-write just wrote from the page cache: it drops
// no cache (IO500 drops caches only when drop-caches is set, and not by
// default). fio's default, invalidate=1, drops the file's pages when a job
// opens it, inside the window, and reads it back from the device: the
// example's ior-easy-read read from the disk where IOR reads from memory
// (storbench's ior-easy-read at 0.48x the real IO500's on one machine).
// The blocks fio read from the device are counted by the kernel
// (getrusage's ru_inblock of the reaped fio processes); a control run
// with invalidate=1 proves the file system under the test's directory has
// a cache fio can drop (it reads no block from a device on tmpfs).
func TestIO500IorEasyReadFromPageCache(t *testing.T) {
	needFio(t)
	// The example's ior-easy phases alone: 2 jobs of 8 MiB, written then
	// read on one host (its own neighbour).
	cut := func(s string) string {
		s = strings.Replace(s, "\nscore: io500\n", "\n", 1)
		s = regexp.MustCompile(`(?s)\n  - name: mdtest-easy-write\n.*?\n(  - name: ior-easy-read\n)`).ReplaceAllString(s, "\n$1")
		return regexp.MustCompile(`(?s)\n  - name: mdtest-easy-stat\n.*$`).ReplaceAllString(s, "\n")
	}
	blocksRead := func(edit func(string) string) int64 {
		t.Helper()
		suite := io500Suite(t, func(s string) string { return edit(cut(s)) })
		var before, after syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &before); err != nil {
			t.Fatal(err)
		}
		st, out := testState()
		o := RunOptions{Dir: t.TempDir(), Results: t.TempDir(), CoVWarn: 5, Confidence: 95}
		if _, err := runSuite(context.Background(), st, o, suite); err != nil {
			t.Fatalf("run: %v\n%s", err, out)
		}
		if !strings.Contains(out.String(), "ior-easy-read") {
			t.Fatalf("the run has no ior-easy-read phase:\n%s", out)
		}
		if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &after); err != nil {
			t.Fatal(err)
		}
		return after.Inblock - before.Inblock // 512-byte blocks
	}
	const read = 2 * 8 << 20 / 512 // what ior-easy-read reads, in 512-byte blocks
	control := blocksRead(func(s string) string {
		return strings.Replace(s, "        rw: read\n", "        rw: read\n        invalidate: 1\n", 1)
	})
	if control < read/2 {
		t.Skipf("with invalidate=1 fio read %d blocks of %d from a device: the file system under the test's directory (tmpfs?) keeps no cache fio can drop", control, read)
	}
	if got := blocksRead(func(s string) string { return s }); got > read/10 {
		t.Errorf("the example's ior-easy-read read %d of its %d blocks from the device (%d with invalidate=1): it drops the page cache IOR reads from", got, read, control)
	}
}
