package md

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
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
	mu      sync.Mutex // workers remove directories side by side
	calls   map[string]int
	removed bool // the planted entry disappeared (it was not the run's)
}

func (f *fakeStaleRmdir) rmdir(raw bool, dfd int, path *byte) syscall.Errno {
	p := goString(path)
	f.mu.Lock()
	f.calls[p]++
	try := f.calls[p]
	f.mu.Unlock()
	entry := p + "/" + f.plant
	switch try {
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
			f.mu.Lock()
			f.removed = true
			f.mu.Unlock()
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

// leadBarrier is the barrier as a host other than the first sees it, the
// first host (h1, with as many workers) played by the fake: at the
// tree-create barrier it makes the iteration directory (iterDir), as the
// first host does before it arrives, and notes whether it was there
// already.
type leadBarrier struct {
	iterDir string
	early   bool
}

func (b *leadBarrier) Wait(_ context.Context, name string, data []byte) (engine.Release, error) {
	if name == "0/tree-create" {
		if _, err := os.Stat(b.iterDir); err == nil {
			b.early = true
		} else if err := os.MkdirAll(b.iterDir, 0o755); err != nil {
			return engine.Release{}, err
		}
	}
	return engine.Release{Start: time.Now().Add(time.Millisecond), Hosts: []engine.Arrival{{Host: "h1", Data: data}, {Host: "h2", Data: data}}}, nil
}

// In a workspace the hosts share, the first host alone makes and removes
// the iteration directory: four GlusterFS clients making one directory at
// the same instant left it broken for some of them (EEXIST then ENOENT, or
// EIO on everything below it). A second host waits for it at the barrier,
// opens it, and leaves its removal to the first host.
func TestSecondHostLeavesIterationToFirst(t *testing.T) {
	dir := t.TempDir()
	b := &leadBarrier{iterDir: filepath.Join(dir, "storbench", "run1", "shared", "md-t1", "it0")}
	// The shared area the first host makes in its Prepare.
	if err := os.MkdirAll(filepath.Dir(b.iterDir), 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := runPhase(t, map[string]any{"dir": dir, "items": 5, "workers": 1, "unique_dir": true, "tree": "t1"},
		engine.Env{Hosts: 2, Rank: 1, Host: "h2", Barrier: b})
	if err != nil {
		t.Fatal(err)
	}
	if b.early {
		t.Error("the second host made the iteration directory before the barrier: the first host makes it")
	}
	if o := op(t, res, "file-create"); o.Ops != 5 || o.Errors != 0 {
		t.Errorf("file-create: %d files, %d errors; want 5, 0", o.Ops, o.Errors)
	}
	if _, err := os.Stat(b.iterDir); err != nil {
		t.Errorf("the second host removed the iteration directory (the first host removes it): %v", err)
	}
}
