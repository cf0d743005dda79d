package md

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/engine"
)

// verify (mdtest's -X) checks in file-read every byte file-create wrote:
// the files as written pass; a file with one byte changed fails the read,
// and so does one cut short, each named as a data error, where a read
// without verify counts both as read.
func TestReadVerifies(t *testing.T) {
	dir := shmDir(t)
	base := map[string]any{"dir": dir, "items": 50, "workers": 2, "files_only": true, "tree": "hard", "stride": 1,
		"write_bytes": 3901, "read_bytes": 3901}
	phase := func(run string, verify bool, only string) (*engine.HostResult, error) {
		m := map[string]any{"only": []string{only}, "verify": verify}
		for k, v := range base {
			m[k] = v
		}
		return runPhase(t, m, engine.Env{RunID: run})
	}
	// A run's files, as file-create wrote them, and one of them.
	files := func(run string) []string {
		if _, err := phase(run, false, "create"); err != nil {
			t.Fatal(err)
		}
		var out []string
		filepath.Walk(filepath.Join(dir, "storbench", run), func(p string, fi os.FileInfo, err error) error {
			if err == nil && fi.Mode().IsRegular() && fi.Size() == 3901 {
				out = append(out, p)
			}
			return nil
		})
		if len(out) != 100 {
			t.Fatalf("%d files of 3,901 bytes, want 100", len(out))
		}
		return out
	}
	f := files("asis")
	good, err := os.ReadFile(f[7])
	if err != nil {
		t.Fatal(err)
	}
	for x, c := range good {
		if c != byte(x) {
			t.Fatalf("%s: byte %d is %d, want %d: file-create writes byte(x) at x", f[7], x, c, byte(x))
		}
	}
	res, err := phase("asis", true, "read")
	if err != nil {
		t.Fatal(err)
	}
	if o := op(t, res, "file-read"); o.Ops != 100 || o.Errors != 0 || o.Bytes != 100*3901 {
		t.Fatalf("verified read of the files as written: %d reads, %d bytes, %d errors; want 100, %d, 0", o.Ops, o.Bytes, o.Errors, 100*3901)
	}
	changed := append([]byte(nil), good...)
	changed[3900]++
	for _, tc := range []struct {
		run  string
		data []byte
	}{{"changed", changed}, {"short", good[:3000]}} {
		f := files(tc.run)
		if err := os.WriteFile(f[7], tc.data, 0o644); err != nil {
			t.Fatal(err)
		}
		if res, err := phase(tc.run, false, "read"); err != nil {
			t.Fatalf("%s: a read without verify failed: %v", tc.run, err)
		} else if o := op(t, res, "file-read"); o.Errors != 0 {
			t.Fatalf("%s: a read without verify counted %d errors", tc.run, o.Errors)
		}
		if _, err := phase(tc.run, true, "read"); err == nil || !strings.Contains(err.Error(), "file-read: data differs") {
			t.Errorf("%s: verified read returned %v, want a data differs error", tc.run, err)
		}
	}
}

// Files larger than the 1 MiB a worker writes at a time still hold
// byte(x) at x, which the verified read checks chunk by chunk.
func TestReadVerifiesLargeFiles(t *testing.T) {
	res, err := runPhase(t, map[string]any{"dir": shmDir(t), "items": 3, "workers": 2, "files_only": true,
		"write_bytes": 2600 << 10, "read_bytes": 2600 << 10, "verify": true}, engine.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if o := op(t, res, "file-read"); o.Ops != 6 || o.Errors != 0 || o.Bytes != 6*2600<<10 {
		t.Errorf("%d verified reads of %d bytes, %d errors; want 6, %d, 0", o.Ops, o.Bytes, o.Errors, 6*2600<<10)
	}
}
