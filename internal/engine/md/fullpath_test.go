package md

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
)

// renameBarrier is the hosts' barrier of a run alone (as fakeBarrier) that,
// right before the file-stat stage, renames the phase's iteration
// directory: a call that names its item by its whole path from DIR then
// finds nothing where the directory was, as mdtest's stat would, while a
// call from an open tree directory follows the directory where it went.
type renameBarrier struct{ dir string }

func (b *renameBarrier) Wait(ctx context.Context, name string, data []byte) (engine.Release, error) {
	if name == "0/file-stat" {
		its, _ := filepath.Glob(filepath.Join(b.dir, "storbench", "*", "*", "*", "it0"))
		if len(its) != 1 {
			return engine.Release{}, fmt.Errorf("iteration directories %v, want one", its)
		}
		if err := os.Rename(its[0], its[0]+".moved"); err != nil {
			return engine.Release{}, err
		}
	}
	return engine.Release{Start: time.Now(), Hosts: []engine.Arrival{{Host: "h1", Data: data}, {Host: "h2", Left: true}}}, nil
}

// full_paths names every item by its whole path from DIR in each call, as
// mdtest names them from -d, so the file system resolves every directory
// on the way on every call: a directory of the path renamed after the
// creates leaves every stat without its file (ENOENT). Without it, calls
// start from the open tree directory and never look at the path.
func TestFullPathsResolveEveryCall(t *testing.T) {
	stat := func(full bool) (*engine.HostResult, error) {
		dir := shmDir(t)
		return runPhase(t, map[string]any{"dir": dir, "items": 20, "workers": 2, "files_only": true, "unique_dir": true,
			"only": []string{"create", "stat"}, "full_paths": full}, engine.Env{Hosts: 2, Barrier: &renameBarrier{dir: dir}})
	}
	res, err := stat(false)
	if err != nil {
		t.Fatalf("from the open tree directories: %v", err)
	}
	if o := op(t, res, "file-stat"); o.Ops != 40 || o.Errors != 0 {
		t.Fatalf("from the open tree directories: %d stats, %d errors; want 40 and 0", o.Ops, o.Errors)
	}
	res, err = stat(true)
	if err == nil || !strings.Contains(err.Error(), "file-stat: ENOENT") {
		t.Fatalf("full_paths: Run returned %v; want every stat to miss its file (ENOENT) once the path changed", err)
	}
	if o := op(t, res, "file-stat"); o.Ops != 0 || o.Errors != 2 {
		t.Errorf("full_paths: %d stats, %d errors; want 0, and each worker's first stat failed", o.Ops, o.Errors)
	}
}
