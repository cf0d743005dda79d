package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// IO500's interleaving: a tree made in one phase (files of 3901 bytes in one
// shared directory), a fio phase between, then find, stat, read and remove
// of the same tree in later phases, each worker reading back its
// neighbour's files (-N 1). Every later phase works on all the files the
// first made, find matches what pfind would, and nothing stays in DIR.
func TestSuiteTreeAcrossPhases(t *testing.T) {
	t.Parallel()
	needFio(t)
	dir := t.TempDir()
	job := filepath.Join(t.TempDir(), "w.fio")
	if err := os.WriteFile(job, []byte(quickJob("write", "")), 0o644); err != nil {
		t.Fatal(err)
	}
	const md = "files_only: true, items: 300, workers: 2, stride: 1, write_bytes: 3901"
	suite := writeSuite(t, "dir: "+dir+"\nphases:\n"+
		"  - md: {tree: hard, only: [create], "+md+"}\n"+
		"  - fio: {workload: "+job+", runtime: 1s}\n"+
		"  - md: {tree: hard, only: [find], find_size: 3901, "+md+"}\n"+
		"  - md: {tree: hard, only: [stat], "+md+"}\n"+
		"  - md: {tree: hard, only: [read], read_bytes: 3901, "+md+"}\n"+
		"  - md: {tree: hard, only: [remove], "+md+"}\n")
	st, out := testState()
	res, err := runSuite(context.Background(), st, RunOptions{Results: t.TempDir(), CoVWarn: 5, Confidence: 95}, suite)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := map[string]string{"file-create": "", "find": "", "file-stat": "", "file-read": "", "file-remove": ""}
	for _, ph := range res.Summary.Phases {
		for _, o := range ph.Ops {
			if _, ok := want[o.Op]; !ok {
				continue
			}
			want[o.Op] = ph.Name
			n := uint64(600)
			if o.Op == "find" {
				n = 600 // one directory: every file, checked once
			}
			if o.Ops != n || o.Errors != 0 {
				t.Errorf("phase %s %s: %d items, %d errors; want %d", ph.Name, o.Op, o.Ops, o.Errors, n)
			}
		}
	}
	for op, ph := range want {
		if ph == "" {
			t.Errorf("no phase ran %s", op)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(res.Folder.Path, "summary.json")); !strings.Contains(string(b), `"cross_host_items"`) {
		t.Error("summary.json has no cross_host_items for the stride")
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("DIR holds %v after the run", left)
	}
}

// A suite whose phases cannot share their tree is refused before anything
// runs, with one line naming the phase and the tree.
func TestSuiteTreeBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct{ name, phases, want string }{
		{"never removed", "  - md: {tree: t, only: [create], items: 5}\n", "no later phase removes it"},
		{"used before made", "  - md: {tree: t, only: [stat], items: 5}\n  - md: {tree: t, only: [create], items: 5}\n", "before any phase creates it"},
		{"made twice", "  - md: {tree: t, only: [create], items: 5}\n  - md: {tree: t, items: 5}\n", "created already"},
		{"used after removal", "  - md: {tree: t, items: 5}\n  - md: {tree: t, only: [stat], items: 5}\n", "after a phase removed it"},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, _ := testState()
			results := t.TempDir()
			_, err := runSuite(context.Background(), st, RunOptions{Results: results, CoVWarn: 5, Confidence: 95}, writeSuite(t, "dir: "+dir+"\nphases:\n"+c.phases))
			if err == nil || !strings.Contains(err.Error(), c.want) || ExitCode(err) != ExitUsage {
				t.Fatalf("err %v (exit %d), want %q and exit %d", err, ExitCode(err), c.want, ExitUsage)
			}
			if ents, _ := os.ReadDir(results); len(ents) != 0 {
				t.Error("bad input made a results folder")
			}
		})
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("refused suites left %v in DIR", left)
	}
}
