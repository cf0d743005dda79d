package fio_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/testutil"
)

// Issue 25 item 12: fio's start-up is paid as few times as the run needs.
// A one-job run asked `fio --version` four times before its first job
// (40-900 ms each on a loaded machine); it asks once. The fio behind
// --fio-bin is the real one, through a script that logs its arguments; so
// is the fio of --tool fio=PATH, the flag's generic spelling.
func TestFioVersionAskedOnce(t *testing.T) {
	for _, flag := range []string{"--fio-bin", "--tool"} {
		t.Run(flag, func(t *testing.T) { fioVersionAskedOnce(t, flag) })
	}
}

func fioVersionAskedOnce(t *testing.T, flag string) {
	bin := storbenchBin(t)
	real, err := exec.LookPath("fio")
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "calls")
	wrap := filepath.Join(dir, "fio-logged")
	script := "#!/bin/sh\necho \"$*\" >> " + log + "\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(wrap, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	value := wrap
	if flag == "--tool" {
		value = "fio=" + wrap
	}
	out, err := testutil.Command(t, bin, "fio", "-d", data, "--rw", "read", "--size", "1m", "--runtime", "1s",
		flag, value, "--results", t.TempDir()).CombinedOutput()
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	calls, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(calls), "--version"); n != 1 {
		t.Errorf("fio --version ran %d times in one run, want once; fio's calls:\n%s", n, calls)
	}
}
