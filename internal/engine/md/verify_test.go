package md

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/engine"
)

// verify (mdtest's -X) checks in file-read every byte file-create wrote:
// files as written pass, on one host and across two (each reads the other
// host's files), and a file changed or cut short between the create and
// the read fails the read, named as a data error, where a read without
// verify counts it as read.
func TestReadVerifies(t *testing.T) {
	dir := shmDir(t)
	env := engine.Env{RunID: "vr1"}
	base := map[string]any{"dir": dir, "items": 50, "workers": 2, "files_only": true, "tree": "hard", "stride": 1,
		"write_bytes": 3901, "read_bytes": 3901}
	with := func(verify bool, only ...string) map[string]any {
		m := map[string]any{"only": only, "verify": verify}
		for k, v := range base {
			m[k] = v
		}
		return m
	}
	if _, err := runPhase(t, with(false, "create"), env); err != nil {
		t.Fatal(err)
	}
	res, err := runPhase(t, with(true, "read"), env)
	if err != nil {
		t.Fatal(err)
	}
	if o := op(t, res, "file-read"); o.Ops != 100 || o.Errors != 0 || o.Bytes != 100*3901 {
		t.Fatalf("verified read of the files as written: %d reads, %d bytes, %d errors; want 100, %d, 0", o.Ops, o.Bytes, o.Errors, 100*3901)
	}
	// One file changed in its last byte, another cut short.
	var files []string
	filepath.Walk(filepath.Join(dir, "storbench", "vr1"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() && fi.Size() == 3901 {
			files = append(files, p)
		}
		return nil
	})
	if len(files) != 100 {
		t.Fatalf("%d files of 3,901 bytes, want 100", len(files))
	}
	b, err := os.ReadFile(files[7])
	if err != nil {
		t.Fatal(err)
	}
	for x, c := range b {
		if c != byte(x) {
			t.Fatalf("%s: byte %d is %d, want %d: file-create writes byte(x) at x", files[7], x, c, byte(x))
		}
	}
	b[3900]++
	if err := os.WriteFile(files[7], b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(files[42], 3000); err != nil {
		t.Fatal(err)
	}
	if res, err := runPhase(t, with(false, "read"), env); err != nil {
		t.Fatalf("a read without verify failed on changed data: %v", err)
	} else if o := op(t, res, "file-read"); o.Errors != 0 {
		t.Fatalf("a read without verify counted %d errors", o.Errors)
	}
	_, err = runPhase(t, with(true, "read"), env)
	if err == nil || !strings.Contains(err.Error(), "data differs") {
		t.Fatalf("verified read of a changed file: %v, want a data differs error", err)
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
