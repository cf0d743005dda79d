package cli

import (
	"context"
	"os"
	"regexp"
	"strconv"
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
	// Another process that drops the page cache meanwhile (make test runs
	// packages side by side, and deploy's systemd test runs a controller
	// with --drop-caches as root) makes fio read from the device: a try
	// in which the kernel's count of drops moved says nothing.
	for try := 1; ; try++ {
		drops := pageCacheDrops(t)
		got := blocksRead(func(s string) string { return s })
		if d := pageCacheDrops(t) - drops; d > 0 {
			if try == 3 {
				t.Skipf("another process dropped the page cache during each of %d tries (%d times in the last): the page cache could not be measured", try, d)
			}
			t.Logf("try %d: another process dropped the page cache %d times meanwhile (fio read %d blocks from the device); again", try, d, got)
			continue
		}
		if got > read/10 {
			t.Errorf("the example's ior-easy-read read %d of its %d blocks from the device (%d with invalidate=1): it drops the page cache IOR reads from", got, read, control)
		}
		return
	}
}

// pageCacheDrops is how often the page cache was dropped since boot
// (drop_pagecache in /proc/vmstat: every write of 1 or 3 to
// /proc/sys/vm/drop_caches, by any process).
func pageCacheDrops(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/vmstat")
	if err != nil {
		t.Skipf("no /proc/vmstat, which says whether another process dropped the page cache: %v", err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "drop_pagecache "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatalf("/proc/vmstat: drop_pagecache %q", v)
			}
			return n
		}
	}
	t.Skip("/proc/vmstat has no drop_pagecache (a kernel before 4.19?), which says whether another process dropped the page cache")
	return 0
}
