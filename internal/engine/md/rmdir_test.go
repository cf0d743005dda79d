package md

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/storbench/storbench/internal/engine"
)

// goString is the NUL-terminated path p points to.
func goString(p *byte) string {
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}

// fakeStaleRmdir stands in for rmdirAt as a GlusterFS client behaves after
// other clients removed a directory's entries: the first removal of each
// directory finds an entry still listed (planted here, named plant: a real
// entry, so the real rmdir really fails with ENOTEMPTY), the second fails
// with EIO (a replica not yet in step), the third is the real removal.
type fakeStaleRmdir struct {
	plant   string
	calls   map[string]int
	removed bool // the planted entry disappeared (it was not the run's)
}

func (f *fakeStaleRmdir) rmdir(raw bool, dfd int, path *byte) syscall.Errno {
	p := goString(path)
	f.calls[p]++
	entry := p + "/" + f.plant
	switch f.calls[p] {
	case 1:
		fd, err := syscall.Openat(dfd, entry, syscall.O_CREAT|syscall.O_WRONLY|syscall.O_CLOEXEC, 0o644)
		if err != nil {
			panic(err)
		}
		syscall.Close(fd)
	case 2:
		return syscall.EIO
	default:
		var st syscall.Stat_t
		e := append([]byte(entry), 0)
		if fstatat(false, dfd, &e[0], &st) != 0 {
			f.removed = true
		}
	}
	return unlinkat(raw, dfd, path, atRemoveDir)
}

func withFakeRmdir(t *testing.T, f *fakeStaleRmdir) {
	real := rmdirAt
	rmdirAt = f.rmdir
	t.Cleanup(func() { rmdirAt = real })
}

// On a distributed file system the removal of a tree's directories can
// find entries other clients removed still listed (ENOTEMPTY) or a replica
// not yet in step (EIO): tree-remove reads the directory again, removes
// the run's entries still listed, retries, and the phase completes with
// every directory counted once and no error.
func TestTreeRemoveRetriesStaleEntries(t *testing.T) {
	f := &fakeStaleRmdir{plant: "f.7", calls: map[string]int{}}
	withFakeRmdir(t, f)
	res, err := runPhase(t, map[string]any{"dir": t.TempDir(), "items": 10, "workers": 2, "depth": 1, "branch": 3, "files_only": true}, engine.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Err != "" {
		t.Fatalf("the phase failed: %s", res.Err)
	}
	o := op(t, res, "tree-remove")
	if o.Ops != 4 || o.Errors != 0 {
		t.Errorf("tree-remove: %d directories, %d errors; want 4 (a root and 3 below it, each once), 0", o.Ops, o.Errors)
	}
	if len(f.calls) != 4 {
		t.Errorf("removals of %d directories, want 4: %v", len(f.calls), f.calls)
	}
}

// An entry that is not the run's is left alone: the removal fails after a
// bounded number of tries, and the error names the directory, the host,
// the rank and the errno.
func TestTreeRemoveLeavesForeignEntries(t *testing.T) {
	f := &fakeStaleRmdir{plant: "notours", calls: map[string]int{}}
	withFakeRmdir(t, f)
	dir := t.TempDir()
	res, err := runPhase(t, map[string]any{"dir": dir, "items": 10, "workers": 1, "depth": 1, "branch": 2, "files_only": true}, engine.Env{Host: "h7"})
	if err == nil || res == nil {
		t.Fatalf("the phase did not fail: %v, %v", err, res)
	}
	want := filepath.Join(dir, "storbench", "run1", "h7", "md", "it0")
	for _, s := range []string{"tree-remove: ENOTEMPTY", want, "host h7", "rank 0"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("the error does not say %q: %v", s, err)
		}
	}
	if f.removed {
		t.Error("the entry that is not the run's was removed")
	}
	for p, n := range f.calls {
		if n > 10 {
			t.Errorf("%s: %d removals, want at most 10", p, n)
		}
	}
	if o := op(t, res, "tree-remove"); o.Errors != 1 {
		t.Errorf("tree-remove: %d errors, want 1", o.Errors)
	}
}

// dir-remove removes directories other clients made: a stale ENOTEMPTY or
// EIO there is retried as in tree-remove, and each directory is one
// operation.
func TestDirRemoveRetriesStaleEntries(t *testing.T) {
	f := &fakeStaleRmdir{plant: "f.7", calls: map[string]int{}}
	withFakeRmdir(t, f)
	res, err := runPhase(t, map[string]any{"dir": t.TempDir(), "items": 5, "workers": 2, "dirs_only": true}, engine.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if o := op(t, res, "dir-remove"); o.Ops != 10 || o.Errors != 0 {
		t.Errorf("dir-remove: %d directories, %d errors; want 10, 0", o.Ops, o.Errors)
	}
	if len(f.calls) != 11 {
		t.Errorf("removals of %d directories, want 11 (10 items, the tree): %v", len(f.calls), f.calls)
	}
}
