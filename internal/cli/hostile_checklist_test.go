package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/testutil"
)

// docs/hostile-checklist.md names the tests that cover each kind of
// hostile input and fault: every test it names exists, so the list cannot
// promise a cover that was renamed or removed.
func TestHostileChecklistNamesRealTests(t *testing.T) {
	t.Parallel()
	root, err := testutil.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "hostile-checklist.md"))
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	_ = filepath.WalkDir(filepath.Join(root, "internal"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") {
			b, _ := os.ReadFile(p)
			src.Write(b)
		}
		return nil
	})
	named := regexp.MustCompile("`(Test[A-Za-z0-9_]+)`").FindAllStringSubmatch(string(doc), -1)
	if len(named) < 20 {
		t.Fatalf("the checklist names %d tests; it is meant to name the tests of every kind", len(named))
	}
	for _, m := range named {
		if !strings.Contains(src.String(), "func "+m[1]+"(") {
			t.Errorf("docs/hostile-checklist.md names %s, which no test file defines", m[1])
		}
	}
	for _, sub := range []string{"RefuseSymlinks", "SwappedWorkspace", "StopMidRun", "PlaceForeign", "PlanAnswers"} {
		if !strings.Contains(src.String(), `"`+sub+`"`) && !strings.Contains(src.String(), ") "+sub+"(") {
			t.Errorf("the checklist names the conformance suite's %s, which it does not have", sub)
		}
	}
}
