package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every run ends with report.html in its results folder; `report` writes
// it again (with a comparison when given a second folder) and summary.md.
func TestRunWritesReportHTML(t *testing.T) {
	t.Parallel()
	dir, res := t.TempDir(), t.TempDir()
	st, out := testState()
	if err := Execute(context.Background(), st, []string{"md", "-d", dir, "-n", "20", "-t", "1", "-F", "--results", res}); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	runs, _ := filepath.Glob(filepath.Join(res, "*"))
	if len(runs) != 1 {
		t.Fatalf("results: %v", runs)
	}
	b, err := os.ReadFile(filepath.Join(runs[0], "report.html"))
	if err != nil {
		t.Fatalf("the run wrote no report.html: %v", err)
	}
	if !strings.Contains(string(b), `<svg class="chart"`) || !strings.Contains(string(b), "file-create") {
		t.Error("report.html has no chart or no file-create row")
	}

	html := filepath.Join(t.TempDir(), "cmp.html")
	st, out = testState()
	if err := Execute(context.Background(), st, []string{"report", runs[0], filepath.Join(testResults, "md-a"), "-o", html}); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	b, err = os.ReadFile(html)
	if err != nil || !strings.Contains(string(b), "Comparison: md-a") {
		t.Errorf("report with a comparison: %v", err)
	}
	if _, err := os.Stat(filepath.Join(runs[0], "summary.md")); err != nil {
		t.Error(err)
	}
}
