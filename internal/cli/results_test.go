package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyResults copies a committed results folder into a temporary one that a
// test may change.
func copyResults(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join(testResults, name)
	dst := filepath.Join(t.TempDir(), name)
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
	return dst
}

// editResults replaces old with new in a results folder's file.
func editResults(t *testing.T, dir, file, old, new string) {
	t.Helper()
	p := filepath.Join(dir, file)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s has no %q", p, old)
	}
	if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(b), old, new)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Merging the same run twice would double every rate, and merging runs
// with no phase in common merges nothing: both are refused with one line,
// exit code 2, and nothing left behind.
func TestMergeRefusesTheSameRunTwiceAndNothingInCommon(t *testing.T) {
	s3a := filepath.Join(testResults, "s3-a")
	// A copy of s3-a under another run id: the same host's s3-mixed twice.
	renamed := copyResults(t, "s3-a")
	editResults(t, renamed, "run.json", "20261121T052511Z-d747", "20261121T052511Z-0000")
	editResults(t, renamed, "summary.json", "20261121T052511Z-d747", "20261121T052511Z-0000")
	for _, tc := range []struct {
		name   string
		inputs []string
		want   string
	}{
		{"same folder twice", []string{s3a, s3a}, "same run"},
		{"a copy of the same run", []string{s3a, copyResults(t, "s3-a")}, "same run"},
		{"the same host twice in a phase", []string{s3a, renamed}, "host vm"},
		{"no phase in common", []string{filepath.Join(testResults, "fio-a"), filepath.Join(testResults, "md-a")}, "no phase in common"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "merged")
			st, buf := testState()
			err := Execute(context.Background(), st, append([]string{"merge", "-o", out}, tc.inputs...))
			if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err %v (exit %d), want exit 2 and one line with %q\n%s", err, ExitCode(err), tc.want, buf)
			}
			if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
				t.Errorf("left behind: %v", entries)
			}
		})
	}
}

// A host's result.json that is missing, cut short or not JSON is named, and
// analyze, report and compare fail with exit code 2 instead of printing
// "0 host(s)" and succeeding.
func TestUnreadableHostResultIsNamed(t *testing.T) {
	const file = "01-randrw/hosts/vm/result.json"
	for _, damage := range []struct {
		name string
		do   func(path string) error
	}{
		{"missing", os.Remove},
		{"cut short", func(p string) error { return os.Truncate(p, 100) }},
		{"empty", func(p string) error { return os.Truncate(p, 0) }},
		{"not JSON", func(p string) error { return os.WriteFile(p, []byte("<html>"), 0o644) }},
	} {
		t.Run(damage.name, func(t *testing.T) {
			dir := copyResults(t, "fio-a")
			if err := damage.do(filepath.Join(dir, file)); err != nil {
				t.Fatal(err)
			}
			other := filepath.Join(testResults, "fio-b")
			for _, args := range [][]string{
				{"analyze", dir},
				{"analyze", "--json", dir},
				{"report", dir},
				{"compare", dir, other},
				{"compare", other, dir},
				{"report", other, dir, "-o", filepath.Join(t.TempDir(), "r.html")},
			} {
				st, out := testState()
				err := Execute(context.Background(), st, args)
				if ExitCode(err) != ExitUsage || !strings.Contains(err.Error(), filepath.Join(dir, file)) || strings.Contains(err.Error(), "\n") {
					t.Errorf("%v: err %v (exit %d), want exit 2 and one line naming %s\n%s", args[0], err, ExitCode(err), file, out)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "report.html")); err == nil {
				t.Error("report wrote report.html from a folder it could not read")
			}
		})
	}
}
