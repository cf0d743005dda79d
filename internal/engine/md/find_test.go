package md

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
)

// A tree of one directory (mdtest-hard's shape) is not walked by one
// worker alone: its entries are dealt out, every one checked once (the
// count and the matches are those of one walk), and each worker checks
// some.
func TestFindSharesOneDirectory(t *testing.T) {
	res, err := runPhase(t, map[string]any{"dir": shmDir(t), "items": 300, "workers": 3, "files_only": true, "find": true,
		"write_bytes": 5}, engine.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if f := op(t, res, "find"); f.Ops != 900 || f.Errors != 0 || f.Found == nil || *f.Found != uint64(matches(3, 300)) {
		t.Errorf("find: %d entries checked (%d errors), found %v; want 900, 0 and %d", f.Ops, f.Errors, f.Found, matches(3, 300))
	}
	lo, hi := res.Meta["find_entries_per_worker_min"], res.Meta["find_entries_per_worker_max"]
	if lo == "" || lo == "0" || hi == "900" {
		t.Errorf("entries per worker %s to %s: one worker walked the directory alone", lo, hi)
	}
}

// matches counts the names f.<rank>.<n> of ranks workers x items that
// match "*01*".
func matches(ranks, items int) int {
	n := 0
	for g := range ranks {
		for i := range items {
			if strings.Contains(fmt.Sprintf("f.%d.%d", g, i), "01") {
				n++
			}
		}
	}
	return n
}

// find_in: data walks the run's whole data directory, as IO500's find
// walks its data directory with -newer: files of other phases and hosts
// are found, subdirectories entered, and a file whose name and size match
// but that was modified before the run began is not (-newer); the
// summary's found count says so.
func TestFindInDataDirectory(t *testing.T) {
	dir := shmDir(t)
	start := time.Now().Add(-time.Minute).UTC()
	runID := start.Format("20060102T150405Z") + "-beef"
	other := filepath.Join(dir, "storbench", runID, "h9", "ior-easy")
	if err := os.MkdirAll(filepath.Join(other, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 3901)
	for _, f := range []string{"a01", "sub/x01", "old01", "c02", "small01"} {
		b := data
		if f == "small01" {
			b = data[:10]
		}
		if err := os.WriteFile(filepath.Join(other, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := start.Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(other, "old01"), old, old); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(filepath.Join(dir, "storbench")) })
	res, err := runPhase(t, map[string]any{"dir": dir, "items": 100, "workers": 2, "files_only": true, "find": true, "find_in": "data",
		"write_bytes": 3901}, engine.Env{RunID: runID})
	if err != nil {
		t.Fatal(err)
	}
	want := uint64(matches(2, 100) + 2) // a01 and sub/x01
	f := op(t, res, "find")
	if f.Found == nil || *f.Found != want || f.Errors != 0 {
		t.Errorf("find found %v (%d errors), want %d: the md files' matches, a01 and sub/x01", f.Found, f.Errors, want)
	}
	// The md files (200), the other phase's 6 entries, and the
	// directories on the way.
	if f.Ops < 206 {
		t.Errorf("find checked %d entries, fewer than the 206 files in the data directory", f.Ops)
	}
	if res.Meta["find_in"] != "data" || res.Meta["find_newer_than_ns"] == "" {
		t.Errorf("meta %v", res.Meta)
	}
}

// In the data directory a leaf directory (no subdirectory) is read by the
// worker it is dealt to alone: the workers together list each entry of
// the leaves once, while every entry is still checked once. Before, every
// worker listed every directory, so that 4 workers listed 4 times what
// one walk reads, and find on several hosts was no faster than on one.
func TestFindInDataReadsALeafOnce(t *testing.T) {
	dir := shmDir(t)
	runID := time.Now().Add(-time.Minute).UTC().Format("20060102T150405Z") + "-cafe"
	// Leaves beside the md phase's own tree: 8 directories of 50 files.
	for d := range 8 {
		leaf := filepath.Join(dir, "storbench", runID, "h9", "ior-easy", fmt.Sprintf("leaf%d", d))
		if err := os.MkdirAll(leaf, 0o755); err != nil {
			t.Fatal(err)
		}
		for f := range 50 {
			if err := os.WriteFile(filepath.Join(leaf, fmt.Sprintf("f%d", f)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Cleanup(func() { os.RemoveAll(filepath.Join(dir, "storbench")) })
	const workers = 4
	res, err := runPhase(t, map[string]any{"dir": dir, "items": 100, "workers": workers, "files_only": true, "find": true, "find_in": "data"},
		engine.Env{RunID: runID})
	if err != nil {
		t.Fatal(err)
	}
	f := op(t, res, "find")
	// The 400 files and 8 leaves, the md phase's 400 files, and the
	// directories on the way to them.
	const files = 8*50 + 8 + workers*100
	if f.Ops < files || f.Ops > files+20 || f.Errors != 0 {
		t.Fatalf("find checked %d entries (%d errors), want %d and the few directories on the way", f.Ops, f.Errors, files)
	}
	listed, err := strconv.ParseUint(res.Meta["find_entries_listed"], 10, 64)
	if err != nil {
		t.Fatalf("find_entries_listed %q: %v", res.Meta["find_entries_listed"], err)
	}
	// The leaves (the 400 files, and the md tree's 400 when it is one)
	// once; the directories above them, a few entries each, by every
	// worker.
	if listed > f.Ops+workers*40 {
		t.Errorf("the workers listed %d entries to check %d: the leaf directories were read by more than one worker", listed, f.Ops)
	}
}
