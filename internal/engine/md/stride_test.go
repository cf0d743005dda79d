package md

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/engine"
)

// With a stride on one host, worker r stats, reads, renames and removes
// what worker r+N created, in one shared tree and in a tree per worker:
// every item is found (no ENOENT), every operation does all items, the
// result says which ranks the workers were and that no item crossed hosts,
// and nothing stays behind.
func TestStrideOneHost(t *testing.T) {
	for _, unique := range []bool{false, true} {
		t.Run(fmt.Sprint("unique_dir=", unique), func(t *testing.T) {
			dir := shmDir(t)
			res, err := runPhase(t, map[string]any{"dir": dir, "items": 300, "workers": 3, "stride": 1, "unique_dir": unique,
				"depth": 1, "branch": 2, "rename": true, "write_bytes": 10, "read_bytes": 10}, engine.Env{})
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range res.Ops {
				if o.Errors != 0 {
					t.Errorf("%s: %d errors %v", o.Op, o.Errors, o.ErrorKinds)
				}
				if !strings.HasPrefix(o.Op, "tree-") && o.Ops != 900 {
					t.Errorf("%s: %d items, want 900", o.Op, o.Ops)
				}
				switch o.Op {
				case "dir-stat", "dir-rename", "file-stat", "file-read", "file-rename", "file-remove", "dir-remove":
					if o.CrossHost == nil || *o.CrossHost != 0 {
						t.Errorf("%s: cross-host items %v on one host, want 0", o.Op, o.CrossHost)
					}
				default:
					if o.CrossHost != nil {
						t.Errorf("%s: cross-host items %d for an operation on its own items", o.Op, *o.CrossHost)
					}
				}
			}
			if m := res.Meta; m["rank_first"] != "0" || m["ranks"] != "3" || m["ranks_total"] != "3" || m["stride"] != "1" {
				t.Errorf("meta %v", m)
			}
			if left := listTree(t, dir); len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}

// Each worker really works on its neighbour's items: with uneven counts
// (a stonewall stops each worker after a different number of creates) the
// stat of worker r does exactly as many items as worker r+1 created.
func TestStrideFollowsTheNeighboursCount(t *testing.T) {
	res, err := runPhase(t, map[string]any{"dir": shmDir(t), "items": 1_000_000, "workers": 2, "stride": 1,
		"files_only": true, "stonewall": "20ms"}, engine.Env{})
	if err != nil {
		t.Fatal(err)
	}
	created, stat := op(t, res, "file-create"), op(t, res, "file-stat")
	if created.Ops == 0 || created.Ops >= 2_000_000 {
		t.Fatalf("%d creates before a 20ms stonewall", created.Ops)
	}
	if stat.Ops != created.Ops || stat.Errors != 0 || op(t, res, "file-remove").Ops != created.Ops {
		t.Errorf("created %d, stat %d (%d errors), removed %d", created.Ops, stat.Ops, stat.Errors, op(t, res, "file-remove").Ops)
	}
	lo, hi := res.Meta["stonewall_file_items_per_rank_min"], res.Meta["stonewall_file_items_per_rank_max"]
	if lo == "" || hi == "" {
		t.Errorf("no items per rank at the stonewall: %v", res.Meta)
	}
}

// find matches names and sizes as find -name PAT -size Nc does: a test
// computes which of the shared tree's names match "*01*" and checks the
// count, and a file of another size does not match.
func TestFindMatches(t *testing.T) {
	res, err := runPhase(t, map[string]any{"dir": shmDir(t), "items": 250, "workers": 2, "files_only": true, "find": true,
		"write_bytes": 7, "depth": 1, "branch": 3}, engine.Env{})
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for g := range 2 {
		for i := range 250 {
			if strings.Contains(fmt.Sprintf("f.%d.%d", g, i), "01") {
				want++
			}
		}
	}
	if got := res.Meta["find_found"]; got != fmt.Sprint(want) {
		t.Errorf("find matched %s, want %d", got, want)
	}
	// 500 files and 3 tree directories below the root.
	if f := op(t, res, "find"); f.Ops != 503 || f.Errors != 0 {
		t.Errorf("find checked %d entries (%d errors), want 503", f.Ops, f.Errors)
	}
	res, err = runPhase(t, map[string]any{"dir": shmDir(t), "items": 250, "workers": 2, "files_only": true, "find": true,
		"write_bytes": 7, "find_size": 8}, engine.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Meta["find_found"]; got != "0" {
		t.Errorf("find matched %s files of 7 bytes for -size 8c", got)
	}
}

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		pat, name string
		want      bool
	}{
		{"*01*", "f.0.101", true}, {"*01*", "f.0.10", false}, {"*01*", "01", true}, {"*", "", true},
		{"f.?", "f.1", true}, {"f.?", "f.10", false}, {"*.1*9", "f.0.1x9", true}, {"*.1*9", "f.0.1x8", false},
		{"a*b*c", "aXbYbZc", true}, {"a*b*c", "aXbYbZ", false}, {"**x", "abx", true}, {"abc", "abcd", false},
	} {
		if got := match(tc.pat, []byte(tc.name)); got != tc.want {
			t.Errorf("match(%q, %q) = %v, want %v", tc.pat, tc.name, got, tc.want)
		}
		if got, _ := filepath.Match(tc.pat, tc.name); got != tc.want {
			t.Fatalf("the table is wrong: filepath.Match(%q, %q) = %v", tc.pat, tc.name, got)
		}
	}
}

// The hot loop allocates nothing with a stride and a shared tree either.
func TestNoAllocationPerItemWithStride(t *testing.T) {
	mallocs := func(items int) uint64 {
		dir := shmDir(t)
		var a, b runtime.MemStats
		runtime.ReadMemStats(&a)
		if _, err := runPhase(t, map[string]any{"dir": dir, "items": items, "workers": 2, "files_only": true, "stride": 1, "find": true}, engine.Env{}); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&b)
		return b.Mallocs - a.Mallocs
	}
	mallocs(100) // warm up
	small, big := mallocs(1000), mallocs(20_000)
	if big > small+500 {
		t.Errorf("20000 items took %d allocations, 1000 items %d: the hot loop allocates", big, small)
	}
}

// A tree phases share lives in the run's shared area; a phase that works
// on it before one made it is refused before any load, and so is a second
// creation.
func TestTreeAcrossPhases(t *testing.T) {
	dir := shmDir(t)
	env := engine.Env{RunID: "tr1"}
	base := map[string]any{"dir": dir, "items": 100, "workers": 2, "files_only": true, "tree": "hard", "stride": 1, "write_bytes": 5}
	with := func(only ...string) map[string]any {
		m := map[string]any{"only": only}
		for k, v := range base {
			m[k] = v
		}
		return m
	}
	if _, err := runPhase(t, with("stat"), env); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("stat before the tree exists: %v", err)
	}
	if left := listTree(t, dir); len(left) != 0 {
		t.Fatalf("a refused phase left %v", left)
	}
	res, err := runPhase(t, with("create"), env)
	if err != nil {
		t.Fatal(err)
	}
	if opNames(res)[1] != "file-create" || len(res.Ops) != 2 {
		t.Errorf("create phase ran %v", opNames(res))
	}
	state := filepath.Join(dir, "storbench", "tr1", "shared", "md-hard", stateFile)
	if _, err := os.Stat(state); err != nil {
		t.Fatalf("the tree's counts are not kept: %v", err)
	}
	if _, err := runPhase(t, with("create"), env); err == nil || !strings.Contains(err.Error(), "made it already") {
		t.Errorf("second create: %v", err)
	}
	// A phase of another shape is refused before any load, and the tree
	// stays for the phases that fit it.
	other := with("stat")
	other["items"] = 50
	if _, err := runPhase(t, other, env); err == nil || !strings.Contains(err.Error(), "same shape") {
		t.Errorf("another shape: %v", err)
	}
	for _, only := range [][]string{{"stat"}, {"find", "read"}, {"remove"}} {
		res, err := runPhase(t, with(only...), env)
		if err != nil {
			t.Fatalf("%v: %v", only, err)
		}
		for _, o := range res.Ops {
			if want := uint64(200); o.Op != "tree-remove" && o.Op != "find" && (o.Ops != want || o.Errors != 0) {
				t.Errorf("%v: %s did %d items (%d errors), want %d", only, o.Op, o.Ops, o.Errors, want)
			}
		}
	}
	if left := listTree(t, dir); len(left) != 0 {
		t.Errorf("left behind after the remove phase: %v", left)
	}
}

// What md asks the run to prove shared (and to remove at its end): the
// target directory whenever workers of several hosts meet in one tree (no
// -u) or read each other's items (-N), and the shared entry of a tree that
// phases share even on one host; nothing for trees of each host's own.
func TestSharedDeclared(t *testing.T) {
	for _, tc := range []struct {
		params map[string]any
		hosts  int
		want   string // the directory; "" for none
		where  string
	}{
		{map[string]any{"unique_dir": true}, 3, "", "/d/storbench/r1/h9/p"},
		{map[string]any{}, 1, "", ""},
		{map[string]any{}, 3, "/d", "/d/storbench/r1/shared/md-p"},
		{map[string]any{"unique_dir": true, "stride": 4}, 2, "/d", "/d/storbench/r1/shared/md-p"},
		{map[string]any{"stride": 1}, 1, "", ""},
		{map[string]any{"tree": "hard", "only": []string{"create"}}, 1, "/d", ""},
		{map[string]any{"tree": "hard", "only": []string{"remove"}, "unique_dir": true}, 4, "/d", "/d/storbench/r1/shared/md-hard"},
	} {
		tc.params["dir"] = "/d"
		raw, _ := json.Marshal(tc.params)
		ph := engine.Phase{Name: "p", Engine: "md", Params: raw}
		got, ok := (engine.Registry{"md": Engine{}}).SharedDir(ph, tc.hosts)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("%v on %d hosts: %q %v, want %q", tc.params, tc.hosts, got, ok, tc.want)
		}
		if tc.where == "" {
			continue
		}
		// A host lost from it left its part there.
		if _, where, _ := (engine.Registry{"md": Engine{}}).Locate(ph, "r1", "h9"); where != tc.where {
			t.Errorf("%v: a lost host's files in %s, want %s", tc.params, where, tc.where)
		}
	}
}

// A stride's advice: -N as mdtest 3.3+ shifts stat, read and remove by 1,
// 2 and 3 times N hosts, so it warns when N is a multiple of the hosts
// (nothing crosses), names the operations that land on the host's own
// items (the remove on 3 hosts, the read on 2), says nothing when all
// cross (4 hosts); the rank stride keeps its own warnings.
func TestStrideAdvice(t *testing.T) {
	for _, tc := range []struct {
		key                    string
		stride, workers, hosts int
		want                   string
	}{
		{"stride", 3, 2, 3, "no stat, read or remove crosses hosts"},
		{"stride", 6, 2, 3, "no stat, read or remove crosses hosts"},
		{"stride", 1, 2, 1, "on one host"},
		{"stride", 1, 2, 3, "remove shifted by 3 hosts work on the host's own items"},
		{"stride", 1, 4, 2, "read shifted by 2 hosts work on the host's own items"},
		{"stride", 1, 4, 4, ""},
		{"stride", 1, 2, 4, ""},
		{"stride", 0, 2, 3, ""},
		{"rank_stride", 6, 2, 3, "every worker works on its own items"},
		{"rank_stride", 1, 4, 2, "2 of 8 workers work on items another host created"},
		{"rank_stride", 4, 4, 2, ""},
	} {
		raw, _ := json.Marshal(map[string]any{"dir": "/d", tc.key: tc.stride, "workers": tc.workers})
		got := strings.Join((engine.Registry{"md": Engine{}}).Advice(engine.Phase{Name: "p", Engine: "md", Params: raw}, tc.hosts), " ")
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%s %d, %d hosts x %d: %q, want %q", tc.key, tc.stride, tc.hosts, tc.workers, got, tc.want)
		}
	}
}
