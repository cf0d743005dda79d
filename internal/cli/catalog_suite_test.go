package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/storbench/storbench/internal/catalog"
)

// A suite's labels: label its run, --label adds to them and wins; a
// suite's label with a key that is not a word is bad input, before any
// load.
func TestSuiteLabels(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cat := filepath.Join(dir, "catalog.db")
	suite := filepath.Join(dir, "suite.yaml")
	os.WriteFile(suite, []byte("name: labelled\ndir: "+dir+"\nlabels:\n  raid: 6\n  tuning: default\nphases:\n  - md:\n      items: 20\n"), 0o644)
	res := filepath.Join(dir, "results")
	if code, out := cmdOut(t, "run", suite, "--results", res, "--catalog", cat, "--label", "tuning=tuned", "--label", "fabric=dual", "-q"); code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	_, out := cmdOut(t, "runs", "--catalog", cat, "--json")
	var runs []catalog.Run
	if err := json.Unmarshal([]byte(out), &runs); err != nil || len(runs) != 1 {
		t.Fatalf("runs: %v\n%s", err, out)
	}
	want := map[string]string{"raid": "6", "tuning": "tuned", "fabric": "dual"}
	for k, v := range want {
		if runs[0].Labels[k] != v {
			t.Errorf("labels %v, want %v", runs[0].Labels, want)
			break
		}
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("name: bad\ndir: "+dir+"\nlabels:\n  \"r a\": 6\nphases:\n  - md:\n      items: 20\n"), 0o644)
	st, sout := testState()
	refusedInOneLine(t, st, sout, []string{"run", bad, "--results", filepath.Join(dir, "bad-results"), "--catalog", cat}, []string{"the suite's labels", "the key must be"})
	if _, err := os.Stat(filepath.Join(dir, "bad-results")); err == nil {
		t.Error("a refused suite left a results folder")
	}
}
