package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The committed s3 runs were made one after the other: merging them must
// refuse with a clear line and leave nothing behind. (Both ran on host vm;
// the second is renamed vm2, as a second client would be.)
func TestMergeRefusesRunsThatDoNotOverlap(t *testing.T) {
	t.Parallel()
	b := copyResults(t, "s3-b")
	editResults(t, b, "summary.json", `"vm"`, `"vm2"`)
	editResults(t, b, "01-s3-mixed/hosts/vm/result.json", `"host": "vm"`, `"host": "vm2"`)
	if err := os.Rename(filepath.Join(b, "01-s3-mixed/hosts/vm"), filepath.Join(b, "01-s3-mixed/hosts/vm2")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "merged")
	st, buf := testState()
	err := Execute(context.Background(), st, []string{"merge", filepath.Join(testResults, "s3-a"), b, "-o", out})
	if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), "do not overlap") {
		t.Fatalf("err %v (exit %d)\n%s", err, ExitCode(err), buf)
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}
