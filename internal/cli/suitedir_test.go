package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/results"
)

// Where a suite's file phases work (issue 36 item 7): a relative -d is the
// working directory's, as in every command-line tool; a relative dir: in
// the suite is the suite file's folder's; a suite that names none works in
// ./storbench-data, as fio and md do. Before, -d data was taken from the
// suite's folder, and either relative directory failed fio with "unable
// to open 'data/storbench/.../rr.gated.fio' job file"; a suite without
// dir was refused without saying "give -d".
func TestSuiteDirectories(t *testing.T) {
	needFio(t)
	const phases = "phases:\n  - name: rr\n    fio: {job: {rw: randread, size: 1M, runtime: 1, time_based: 1}}\n  - md: {items: 10}\n"
	// run runs the suite and says in which directory its phases worked
	// (run.json's plan), checking both ran.
	run := func(t *testing.T, args ...string) string {
		t.Helper()
		res := t.TempDir()
		st, out := testState()
		if err := Execute(context.Background(), st, append(append([]string{"run"}, args...), "--results", res)); err != nil {
			t.Fatalf("run %v: %v\n%s", args, err, out)
		}
		folders, _ := filepath.Glob(filepath.Join(res, "*"))
		if len(folders) != 1 {
			t.Fatalf("run %v made %d results folders", args, len(folders))
		}
		s, err := results.ReadSummary(folders[0])
		if err != nil || s.Status != results.StatusCompleted || len(s.Phases) != 2 {
			t.Fatalf("run %v: %v, %+v\n%s", args, err, s, out)
		}
		info, err := results.ReadRunInfo(folders[0])
		if err != nil {
			t.Fatal(err)
		}
		var p struct{ Dir string }
		if err := json.Unmarshal(info.Plan[1].Params, &p); err != nil {
			t.Fatal(err)
		}
		return p.Dir
	}
	wd := t.TempDir()
	t.Chdir(wd)
	suites := filepath.Join(wd, "suites")
	if err := os.MkdirAll(filepath.Join(suites, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(wd, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	withDir := filepath.Join(suites, "with-dir.yaml")
	without := filepath.Join(suites, "without.yaml")
	_ = os.WriteFile(withDir, []byte("name: rel\ndir: data\n"+phases), 0o644)
	_ = os.WriteFile(without, []byte("name: nodir\n"+phases), 0o644)

	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"-d relative to the working directory", []string{"suites/with-dir.yaml", "-d", "data"}, filepath.Join(wd, "data")},
		{"dir: relative to the suite's folder", []string{"suites/with-dir.yaml"}, filepath.Join(suites, "data")},
		{"no dir: ./storbench-data", []string{without}, filepath.Join(wd, defaultDir)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := run(t, c.args...); got != c.want {
				t.Errorf("run %v worked in %q, want %q", c.args, got, c.want)
			}
		})
	}
	t.Run("no dir, with agents: give -d", func(t *testing.T) {
		st, out := testState()
		err := Execute(context.Background(), st, []string{"run", without, "--agents", "10.255.255.1", "--dry-run"})
		if ExitCode(err) != ExitUsage || err == nil || !strings.Contains(err.Error(), "give -d DIR") {
			t.Errorf("a suite without dir on agents: %v (exit %d), want exit 2 saying give -d DIR\n%s", err, ExitCode(err), out)
		}
	})
}
