package md

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
)

// shmDir returns a new directory on tmpfs (/dev/shm) when there is one, so
// that tests with thousands of files stay fast; else a temp dir.
func shmDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("/dev/shm", "storbench-md-test-")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// listTree returns every path below dir, relative to it, sorted.
func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEveryOperation runs all twelve operations over two iterations of a
// small tree and checks what a user reads in the summary: every operation,
// in mdtest's order, each iteration's item count, bytes moved, what find
// matched, no errors, and nothing left behind; the same whether items are
// named from their tree directory or by their whole path (full_paths).
func TestEveryOperation(t *testing.T) {
	for _, full := range []bool{false, true} {
		t.Run(fmt.Sprintf("full_paths=%v", full), func(t *testing.T) { everyOperation(t, full) })
	}
}

func everyOperation(t *testing.T, fullPaths bool) {
	dir := t.TempDir()
	res, err := runPhase(t, map[string]any{
		"dir": dir, "items": 30, "iterations": 2, "depth": 2, "branch": 2,
		"workers": 2, "unique_dir": true, "rename": true, "random": true, "sync": true,
		"write_bytes": "1k", "read_bytes": 600, "find": true, "find_name": "f.1*", "full_paths": fullPaths,
	}, engine.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Err != "" {
		t.Fatalf("unexpected error: %s", res.Err)
	}
	want := OpNames[:]
	if got := opNames(res); !slices.Equal(got, want) {
		t.Fatalf("operations %v, want %v", got, want)
	}
	// Two trees of 1+2+4 directories (counted as one, as mdtest counts
	// tree creation); 30 items per worker over 7 nodes. find checks every
	// entry of every tree directory: per tree 30 files and 6 tree
	// directories (the item directories went before the files came, as
	// mdtest runs every directory operation first).
	items := map[string]uint64{"tree-create": 7, "tree-remove": 7, "find": 72}
	for _, o := range res.Ops {
		wantItems := items[o.Op]
		if wantItems == 0 {
			wantItems = 60
		}
		if len(o.Iterations) != 2 {
			t.Fatalf("%s: %d iterations, want 2", o.Op, len(o.Iterations))
		}
		for i, it := range o.Iterations {
			if it.Items != wantItems {
				t.Errorf("%s iteration %d: %d items, want %d", o.Op, i, it.Items, wantItems)
			}
			if it.EndNs <= it.StartNs {
				t.Errorf("%s iteration %d: empty window %d..%d", o.Op, i, it.StartNs, it.EndNs)
			}
		}
		if o.Ops != 2*wantItems || o.Errors != 0 {
			t.Errorf("%s: %d ops %d errors, want %d and 0", o.Op, o.Ops, o.Errors, 2*wantItems)
		}
		// Both workers make a tree (-u); as mdtest times rank 0's, the
		// histogram holds the one tree counted.
		if o.Lat.Bins.Total() != o.Ops || o.Lat.Bins.Percentile(99) <= 0 {
			t.Errorf("%s: histogram holds %d of %d ops", o.Op, o.Lat.Bins.Total(), o.Ops)
		}
	}
	if b := op(t, res, "file-create").Bytes; b != 120*1024 {
		t.Errorf("file-create wrote %d bytes, want %d", b, 120*1024)
	}
	if b := op(t, res, "file-read").Bytes; b != 120*600 {
		t.Errorf("file-read read %d bytes, want %d", b, 120*600)
	}
	// f.1 and f.10 to f.19 of each worker, in each iteration, all of 1 KiB.
	if got := res.Meta["find_found"]; got != "44" {
		t.Errorf("find matched %s files, want 44", got)
	}
	// The iterations' windows follow each other in mdtest's order.
	for i := 1; i < len(res.Ops); i++ {
		if res.Ops[i].Iterations[0].StartNs < res.Ops[i-1].Iterations[0].EndNs {
			t.Errorf("%s started before %s ended", res.Ops[i].Op, res.Ops[i-1].Op)
		}
	}
	if left := listTree(t, dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestSharedDirectory has workers share one tree: items from all workers sit
// side by side and every one is created, found and removed.
func TestSharedDirectory(t *testing.T) {
	dir := shmDir(t)
	res, err := runPhase(t, map[string]any{"dir": dir, "items": 40, "workers": 3, "depth": 1, "branch": 3}, engine.Env{})
	if err != nil || res.Err != "" {
		t.Fatalf("%v %s", err, res.Err)
	}
	for _, name := range []string{"dir-create", "dir-stat", "file-create", "file-stat", "file-read", "file-remove", "dir-remove"} {
		if it := op(t, res, name).Iterations[0]; it.Items != 120 {
			t.Errorf("%s: %d items, want 120", name, it.Items)
		}
	}
	// One shared tree of 4 directories, made by one worker.
	if it := op(t, res, "tree-create").Iterations[0]; it.Items != 4 {
		t.Errorf("tree-create: %d items, want 4", it.Items)
	}
}

// TestFilesOnlyDirsOnly checks -F and -D leave out the other kind.
func TestFilesOnlyDirsOnly(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want []string
	}{
		{"files_only", []string{"tree-create", "file-create", "file-stat", "file-read", "file-remove", "tree-remove"}},
		{"dirs_only", []string{"tree-create", "dir-create", "dir-stat", "dir-rename", "dir-remove", "tree-remove"}},
	} {
		t.Run(tc.key, func(t *testing.T) {
			res, err := runPhase(t, map[string]any{"dir": t.TempDir(), "items": 10, "workers": 2, tc.key: true}, engine.Env{})
			if err != nil {
				t.Fatal(err)
			}
			if got := opNames(res); !slices.Equal(got, tc.want) {
				t.Errorf("operations %v, want %v", got, tc.want)
			}
		})
	}
}

// TestPreexistingEntriesUntouched puts entries in DIR, with names like the
// engine's own, and checks a run leaves them exactly as they were.
func TestPreexistingEntriesUntouched(t *testing.T) {
	dir := t.TempDir()
	mustWrite := func(p, s string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustWrite(filepath.Join(dir, "f.0"), "mine")
	mustWrite(filepath.Join(dir, "d.0", "keep"), "mine too")
	mustWrite(filepath.Join(dir, "storbench", "other-run", "h1", "md", "x"), "another run")
	before := listTree(t, dir)

	res, err := runPhase(t, map[string]any{"dir": dir, "items": 20, "workers": 2, "unique_dir": true}, engine.Env{})
	if err != nil || res.Err != "" {
		t.Fatalf("%v %v", err, res)
	}
	if after := listTree(t, dir); !slices.Equal(before, after) {
		t.Errorf("entries changed:\nbefore %v\nafter  %v", before, after)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "f.0")); string(b) != "mine" {
		t.Errorf("f.0 now holds %q", b)
	}

	// A run into a phase directory that already exists is refused and
	// removes nothing.
	_, err = runPhase(t, map[string]any{"dir": dir, "items": 20}, engine.Env{RunID: "other-run"})
	if err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("reusing another run's directory: err %v", err)
	}
	if after := listTree(t, dir); !slices.Equal(before, after) {
		t.Errorf("entries changed by a refused run: %v", after)
	}
}

// TestKeep leaves the workspace in place.
func TestKeep(t *testing.T) {
	dir := t.TempDir()
	if _, err := runPhase(t, map[string]any{"dir": dir, "items": 5}, engine.Env{Keep: true, RunID: "r9"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "storbench", "r9", "h1", "md")); err != nil {
		t.Errorf("kept workspace missing: %v", err)
	}
}

// TestStonewall ends the create operations at the time limit; the later
// operations work on exactly what was created.
func TestStonewall(t *testing.T) {
	res, err := runPhase(t, map[string]any{"dir": shmDir(t), "items": 1_000_000, "workers": 2, "unique_dir": true, "stonewall": "1us"}, engine.Env{})
	if err != nil || res.Err != "" {
		t.Fatalf("%v %v", err, res)
	}
	for _, name := range []string{"dir-create", "file-create"} {
		created := op(t, res, name).Iterations[0].Items
		if created == 0 || created >= 100_000 {
			t.Fatalf("%s: %d items before a 1us stonewall", name, created)
		}
	}
	pairs := [][2]string{{"dir-create", "dir-stat"}, {"dir-create", "dir-remove"}, {"file-create", "file-stat"}, {"file-create", "file-read"}, {"file-create", "file-remove"}}
	for _, p := range pairs {
		if a, b := op(t, res, p[0]).Iterations[0].Items, op(t, res, p[1]).Iterations[0].Items; a != b {
			t.Errorf("%s did %d items, %s %d", p[1], b, p[0], a)
		}
	}
}

// TestCancel stops a long phase quickly, returns ctx's error, marked
// engine.ErrInterrupted, with what was measured, and cleanup removes
// everything.
func TestCancel(t *testing.T) {
	dir := shmDir(t)
	raw, _ := json.Marshal(map[string]any{"dir": dir, "items": 10_000_000, "workers": 2, "unique_dir": true, "files_only": true})
	e := Engine{}
	ctx, cancel := context.WithCancel(context.Background())
	pr, err := e.Prepare(ctx, engine.Env{Host: "h1", RunID: "c1"}, engine.Phase{Name: "md", Engine: "md", Params: raw})
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(200*time.Millisecond, cancel)
	t0 := time.Now()
	res, err := pr.Run(ctx, time.Now(), nil)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, engine.ErrInterrupted) {
		t.Errorf("Run returned %v, want context.Canceled and engine.ErrInterrupted", err)
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Errorf("Run took %v to stop", d)
	}
	if res == nil || len(res.Ops) == 0 || res.Ops[len(res.Ops)-1].Ops == 0 {
		t.Fatalf("no partial result: %+v", res)
	}
	if err := pr.Cleanup(context.Background()); err != nil {
		t.Fatal(err)
	}
	if left := listTree(t, dir); len(left) != 0 {
		t.Errorf("left behind: %d entries, e.g. %v", len(left), left[:min(3, len(left))])
	}
}

// TestLiveSnapshots sees the stage and cumulative counts while it runs.
func TestLiveSnapshots(t *testing.T) {
	old := liveEvery
	liveEvery = 5 * time.Millisecond
	defer func() { liveEvery = old }()
	raw, _ := json.Marshal(map[string]any{"dir": shmDir(t), "items": 20_000, "workers": 2, "unique_dir": true, "files_only": true})
	e := Engine{}
	ctx := context.Background()
	pr, err := e.Prepare(ctx, engine.Env{Host: "h1", RunID: "l1"}, engine.Phase{Name: "md", Engine: "md", Params: raw})
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Cleanup(ctx)
	var mu sync.Mutex
	stages := map[string]bool{}
	res, err := pr.Run(ctx, time.Now(), func(s engine.Snapshot) {
		mu.Lock()
		defer mu.Unlock()
		stages[s.Stage] = true
		if s.Host != "h1" || s.Phase != "md" || len(s.Ops) != 6 {
			t.Errorf("snapshot %+v", s)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(stages) < 2 {
		t.Errorf("snapshots saw stages %v, want several", stages)
	}
	var total uint64
	for _, s := range res.Series {
		if s.Op == "file-create" {
			total += s.Ops
		}
	}
	if total != 40_000 {
		t.Errorf("series sums to %d file creates, want 40000", total)
	}
}

// TestBadInput checks each refusal gives one clear line naming the problem.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	notDir := filepath.Join(dir, "file")
	os.WriteFile(notDir, nil, 0o644)
	for _, tc := range []struct {
		name   string
		params map[string]any
		want   string
	}{
		{"missing dir", map[string]any{"dir": filepath.Join(dir, "nope")}, "does not exist"},
		{"no dir", map[string]any{}, "no target directory"},
		{"not a dir", map[string]any{"dir": notDir}, "not a directory"},
		{"items 0", map[string]any{"dir": dir, "items": 0}, "items (-n) must be at least 1"},
		{"items negative", map[string]any{"dir": dir, "items": -5}, "items (-n) must be at least 1"},
		{"items absurd", map[string]any{"dir": dir, "items": 1e12}, "more than the limit"},
		{"iterations 0", map[string]any{"dir": dir, "iterations": 0}, "iterations (-i)"},
		{"workers negative", map[string]any{"dir": dir, "workers": -1}, "workers (-t)"},
		{"workers absurd", map[string]any{"dir": dir, "workers": 100000}, "workers (-t)"},
		{"depth negative", map[string]any{"dir": dir, "depth": -1}, "depth (-z)"},
		{"branch 0", map[string]any{"dir": dir, "branch": 0}, "branch (-b)"},
		{"tree too big", map[string]any{"dir": dir, "depth": 6, "branch": 10}, "use --force"},
		{"trees too many", map[string]any{"dir": dir, "depth": 3, "branch": 10, "workers": 100, "unique_dir": true}, "use --force"},
		{"forced tree beyond any limit", map[string]any{"dir": dir, "depth": 30, "branch": 10, "force": true}, "too many"},
		{"both -F and -D", map[string]any{"dir": dir, "files_only": true, "dirs_only": true}, "exclude each other"},
		{"typo", map[string]any{"dir": dir, "itmes": 5}, `unknown field "itmes"`},
		{"bad size", map[string]any{"dir": dir, "write_bytes": "lots"}, "write_bytes"},
		{"bad stonewall", map[string]any{"dir": dir, "stonewall": "soon"}, "stonewall"},
		{"negative write", map[string]any{"dir": dir, "write_bytes": -1}, "write-bytes"},
		{"negative stride", map[string]any{"dir": dir, "stride": -1}, "stride (-N) must be 0 to"},
		{"huge stride", map[string]any{"dir": dir, "stride": 1 << 30}, "stride (-N) must be 0 to"},
		{"only nothing", map[string]any{"dir": dir, "only": []string{}}, "only: give at least one"},
		{"only unknown", map[string]any{"dir": dir, "only": []string{"creat"}}, `"creat" is not an operation`},
		{"only stat without a tree", map[string]any{"dir": dir, "only": []string{"stat"}}, "name it with tree: NAME"},
		{"tree with a slash", map[string]any{"dir": dir, "tree": "a/b"}, `tree "a/b": give a name`},
		{"tree dot-dot", map[string]any{"dir": dir, "tree": ".."}, `tree "..": give a name`},
		{"tree empty-ish", map[string]any{"dir": dir, "tree": "x y"}, `tree "x y": give a name`},
		{"tree with iterations", map[string]any{"dir": dir, "tree": "t", "iterations": 2}, "run one iteration each"},
		{"find name with a slash", map[string]any{"dir": dir, "find": true, "find_name": "a/*"}, "find_name"},
		{"find name empty", map[string]any{"dir": dir, "find": true, "find_name": ""}, "find_name"},
		{"find size negative", map[string]any{"dir": dir, "find": true, "find_size": -1}, "find_size"},
		{"find size malformed", map[string]any{"dir": dir, "find": true, "find_size": "big"}, "find_size"},
		{"rename with dirs only", map[string]any{"dir": dir, "dirs_only": true, "rename": true}, "dirs-only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runPhase(t, tc.params, engine.Env{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want it to mention %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
	if left := listTree(t, dir); !slices.Equal(left, []string{"file"}) {
		t.Errorf("refused runs left %v", left)
	}
	// A big tree is fine when forced (checked, not run).
	raw, _ := json.Marshal(map[string]any{"dir": dir, "depth": 6, "branch": 10, "force": true})
	if err := (engine.Registry{"md": Engine{}}).Validate(engine.Phase{Name: "md", Engine: "md", Params: raw}); err != nil {
		t.Errorf("forced tree refused: %v", err)
	}
}

// mountTmpfs mounts a tmpfs with the given options on a new directory and
// unmounts it at the end of the test; it skips when not root.
func mountTmpfs(t *testing.T, opts string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs (run the tests as root, as CI does)")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", opts, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
		}
	})
	return dir
}

// TestReadOnlyDir refuses a read-only target with one line.
func TestReadOnlyDir(t *testing.T) {
	dir := mountTmpfs(t, "ro,size=1m")
	_, err := runPhase(t, map[string]any{"dir": dir}, engine.Env{})
	if err == nil || !strings.Contains(err.Error(), "not writable") {
		t.Fatalf("err %v, want not writable", err)
	}
}

// TestFileSystemFull runs out of inodes, of space, and of inodes while
// making the trees, mid-phase: the
// failing operation ends with its error counted by kind, the later
// operations work on what was created, and everything is cleaned up.
func TestFileSystemFull(t *testing.T) {
	for _, tc := range []struct {
		name, opts, first string
		params            map[string]any
	}{
		{"inodes", "size=1m,nr_inodes=200", "dir-create", map[string]any{"items": 500}},
		{"space", "size=256k,nr_inodes=10000", "file-create", map[string]any{"items": 500, "write_bytes": "16k", "files_only": true}},
		{"tree", "size=1m,nr_inodes=200", "tree-create", map[string]any{"items": 10, "depth": 2, "branch": 10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := mountTmpfs(t, tc.opts)
			p := map[string]any{"dir": dir, "workers": 2, "unique_dir": true}
			for k, v := range tc.params {
				p[k] = v
			}
			res, err := runPhase(t, p, engine.Env{})
			if err == nil || res == nil || !strings.Contains(err.Error(), "ENOSPC") {
				t.Fatalf("Run returned %v, want the result and an ENOSPC error", err)
			}
			if !strings.Contains(res.Err, "ENOSPC") {
				t.Errorf("result error %q, want ENOSPC", res.Err)
			}
			// The error names the item it hit (issue 23: a stale entry
			// on a shared file system is one item another client made).
			if tc.name == "space" && !regexp.MustCompile(`file-create: ENOSPC on \S*/f\.\d+, rank \d's;`).MatchString(res.Err) {
				t.Errorf("result error %q does not name the item", res.Err)
			}
			var failed string
			for _, o := range res.Ops {
				if o.ErrorKinds["ENOSPC"] > 0 {
					failed = o.Op
					break
				}
			}
			if failed != tc.first {
				t.Fatalf("first operation to count ENOSPC: %q, want %s", failed, tc.first)
			}
			fc := op(t, res, "file-create")
			created := fc.Iterations[0].Items
			if created >= 1000 {
				t.Errorf("file-create did all %d items on a full file system", created)
			}
			if tc.name == "space" {
				// A file whose data did not fit still exists and is removed.
				created += fc.Errors
			}
			if rm := op(t, res, "file-remove"); rm.Ops != created || rm.Errors != 0 {
				t.Errorf("file-remove: %d ops %d errors, want %d and 0", rm.Ops, rm.Errors, created)
			}
			if st := op(t, res, "file-stat"); st.Errors != 0 {
				t.Errorf("file-stat: %d errors on existing files", st.Errors)
			}
			// The trees' directories that were made are removed, and only
			// those.
			if tc, tr := op(t, res, "tree-create"), op(t, res, "tree-remove"); tr.Errors != 0 || tr.Ops != tc.Ops {
				t.Errorf("tree-remove: %d ops %d errors after %d tree directories made", tr.Ops, tr.Errors, tc.Ops)
			}
		})
	}
}

// TestPermutation visits every item exactly once in a scrambled order.
func TestPermutation(t *testing.T) {
	for _, n := range []int64{1, 2, 3, 7, 8, 9, 1000, 4097} {
		p := newPermutation(n, uint64(n))
		seen := make([]bool, n)
		inOrder := 0
		for i := int64(0); i < n; i++ {
			v := p.next()
			if v < 0 || v >= n || seen[v] {
				t.Fatalf("n=%d: step %d gave %d (repeat or out of range)", n, i, v)
			}
			seen[v] = true
			if v == i {
				inOrder++
			}
		}
		if n >= 1000 && inOrder > int(n/10) {
			t.Errorf("n=%d: %d items in their own place; not scrambled", n, inOrder)
		}
	}
}

// TestNodePath names tree directories breadth first.
func TestNodePath(t *testing.T) {
	for k, want := range map[int64]string{0: "w0", 1: "w0/t.1", 3: "w0/t.3", 6: "w0/t.1/t.6", 13: "w0/t.1/t.4/t.13"} {
		if got := string(nodePath(nil, "w0", k, 3)); got != want {
			t.Errorf("node %d: %s, want %s", k, got, want)
		}
	}
}

// TestMoreDirectoriesThanItems spreads 10 items over a 40-directory tree:
// some directories stay empty, and every item is still created and removed.
func TestMoreDirectoriesThanItems(t *testing.T) {
	res, err := runPhase(t, map[string]any{"dir": shmDir(t), "items": 10, "workers": 1, "depth": 3, "branch": 3}, engine.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if got := op(t, res, "tree-create").Ops; got != 40 {
		t.Errorf("tree-create: %d directories, want 40", got)
	}
	for _, name := range []string{"file-create", "file-remove", "dir-create", "dir-remove"} {
		if got := op(t, res, name).Ops; got != 10 {
			t.Errorf("%s: %d items, want 10", name, got)
		}
	}
}

// TestNoAllocationPerItem checks the engine's hot loop allocates nothing: a
// run with 20 times the items allocates about as often as a small one.
func TestNoAllocationPerItem(t *testing.T) {
	for _, full := range []bool{false, true} {
		t.Run(fmt.Sprintf("full_paths=%v", full), func(t *testing.T) { noAllocationPerItem(t, full) })
	}
}

func noAllocationPerItem(t *testing.T, fullPaths bool) {
	mallocs := func(items int) uint64 {
		dir := shmDir(t)
		var a, b runtime.MemStats
		runtime.ReadMemStats(&a)
		if _, err := runPhase(t, map[string]any{"dir": dir, "items": items, "workers": 1, "files_only": true, "rename": true, "full_paths": fullPaths}, engine.Env{}); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&b)
		return b.Mallocs - a.Mallocs
	}
	mallocs(100) // warm up
	small, big := mallocs(1000), mallocs(20_000)
	// 19,000 more items of four operations each; allow a few hundred for
	// histogram buckets that only the longer run fills.
	if big > small+500 {
		t.Errorf("20000 items took %d allocations, 1000 items %d: the hot loop allocates", big, small)
	}
}

// dirtyKiB reads the host's dirty page cache (/proc/meminfo's Dirty), KiB.
func dirtyKiB(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		t.Skipf("no /proc/meminfo: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "Dirty:" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	t.Skip("no Dirty line in /proc/meminfo")
	return 0
}

// sync (-Y) flushes every file system, as mdtest's -Y calls sync(2), not
// only the one md works on: data written (not flushed) to a disk file
// system before an md phase on tmpfs is clean after it.
func TestSyncFlushesEveryFileSystem(t *testing.T) {
	disk := t.TempDir()
	f, err := os.Create(filepath.Join(disk, "dirty"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	before := dirtyKiB(t)
	if _, err := f.Write(make([]byte, 64<<20)); err != nil {
		t.Fatal(err)
	}
	if d := dirtyKiB(t); d < before+48<<10 {
		t.Skipf("%s holds no dirty pages after a 64 MiB write (Dirty %d KiB, was %d): not a disk file system", disk, d, before)
	}
	if _, err := runPhase(t, map[string]any{"dir": shmDir(t), "items": 10, "workers": 1, "sync": true}, engine.Env{}); err != nil {
		t.Fatal(err)
	}
	if d := dirtyKiB(t); d > 16<<10 {
		t.Errorf("Dirty %d KiB after an md phase with sync: the 64 MiB written elsewhere were not flushed", d)
	}
}
