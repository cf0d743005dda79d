package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The committed s3 runs were made one after the other: merging them must
// refuse with a clear line and leave nothing behind.
func TestMergeRefusesRunsThatDoNotOverlap(t *testing.T) {
	out := filepath.Join(t.TempDir(), "merged")
	st, buf := testState()
	err := Execute(context.Background(), st, []string{"merge", filepath.Join(testResults, "s3-a"), filepath.Join(testResults, "s3-b"), "-o", out})
	if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), "do not overlap") {
		t.Fatalf("err %v (exit %d)\n%s", err, ExitCode(err), buf)
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}
