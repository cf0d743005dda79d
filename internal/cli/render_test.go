package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/report"
	"github.com/storbench/storbench/internal/results"
)

// renderedFiles lists the files at the top of a results folder that are
// not its data (run.json, summary.json, the phases' folders).
func renderedFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() && e.Name() != "run.json" && e.Name() != "summary.json" {
			out = append(out, e.Name())
		}
	}
	return out
}

// copyFolder copies the results folder src to dst.
func copyFolder(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A results folder holds the same rendered files whichever command wrote
// it: a run (with sweeps, so sweep.tsv is among them), a merge of that run
// with a second client's copy of it, and report of the run's data. Every
// command takes the one list: a renderer a test adds to it (one rendered
// after every phase, one at the end) appears in all three.
func TestRunMergeReportRenderTheSameFiles(t *testing.T) {
	t.Parallel()
	data, res := t.TempDir(), t.TempDir()
	list := append(report.Renderers(),
		results.Renderer{File: "test-phases.txt", Render: results.FromSummary(func(s *results.Summary) []byte {
			return fmt.Appendf(nil, "%d phases\n", len(s.Phases))
		})},
		results.Renderer{File: "test-final.txt", Final: true, Render: func(in *results.RenderInput) ([]byte, error) {
			return fmt.Appendf(nil, "%s %s\n", filepath.Base(in.Dir), in.Summary.Status), nil
		}})
	state := func() (*State, fmt.Stringer) {
		st, out := testState()
		st.Renderers = list
		return st, out
	}
	suite := filepath.Join(t.TempDir(), "suite.yaml")
	if err := os.WriteFile(suite, []byte("name: r\ndir: "+data+"\nphases:\n  - name: m\n    md: {items: 20}\n    iterations: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, out := state()
	if err := Execute(context.Background(), st, []string{"run", suite, "--results", res}); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	runs, _ := filepath.Glob(filepath.Join(res, "*"))
	if len(runs) != 1 {
		t.Fatalf("results: %v", runs)
	}
	ran := renderedFiles(t, runs[0])
	for _, f := range []string{"summary.md", "sweep.tsv", "report.html", "test-phases.txt", "test-final.txt"} {
		if !slices.Contains(ran, f) {
			t.Errorf("the run wrote %v: no %s", ran, f)
		}
	}

	// A second client's copy of the run: another run id, another host.
	sum, err := results.ReadSummary(runs[0])
	if err != nil {
		t.Fatal(err)
	}
	host := sum.Phases[0].Hosts[0]
	second := filepath.Join(t.TempDir(), "second")
	copyFolder(t, runs[0], second)
	editResults(t, second, "run.json", sum.RunID, sum.RunID+"x")
	editResults(t, second, "summary.json", `"`+host+`"`, `"`+host+`2"`)
	for _, ps := range sum.Phases {
		editResults(t, second, filepath.Join(ps.Dir, "hosts", host, "result.json"), `"host": "`+host+`"`, `"host": "`+host+`2"`)
		if err := os.Rename(filepath.Join(second, ps.Dir, "hosts", host), filepath.Join(second, ps.Dir, "hosts", host+"2")); err != nil {
			t.Fatal(err)
		}
	}
	merged := filepath.Join(t.TempDir(), "merged")
	st, out = state()
	if err := Execute(context.Background(), st, []string{"merge", runs[0], second, "-o", merged}); err != nil {
		t.Fatalf("merge: %v\n%s", err, out)
	}
	if got := renderedFiles(t, merged); !slices.Equal(got, ran) {
		t.Errorf("merge wrote %v, the run %v", got, ran)
	}

	// report of the run's data, its rendered files taken away first.
	again := filepath.Join(t.TempDir(), "again")
	copyFolder(t, runs[0], again)
	for _, f := range ran {
		if err := os.Remove(filepath.Join(again, f)); err != nil {
			t.Fatal(err)
		}
	}
	st, out = state()
	if err := Execute(context.Background(), st, []string{"report", again}); err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	if got := renderedFiles(t, again); !slices.Equal(got, ran) {
		t.Errorf("report wrote %v, the run %v", got, ran)
	}
	for _, f := range ran {
		if !strings.Contains(out.String(), filepath.Join(again, f)) {
			t.Errorf("report does not say it wrote %s: %s", f, out)
		}
	}
}
