package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// binProbeEnv makes TestStorbenchBinProbe build the binary and print its
// path; only TestStorbenchBinLeavesNothing sets it, in a go test it runs.
const binProbeEnv = "STORBENCH_BIN_PROBE"

func TestStorbenchBinProbe(t *testing.T) {
	if os.Getenv(binProbeEnv) != "1" {
		t.Skip("run by TestStorbenchBinLeavesNothing")
	}
	bin := StorbenchBin(t)
	if out, err := exec.Command(bin, "--version").CombinedOutput(); err != nil {
		t.Fatalf("%s --version: %v: %s", bin, err, out)
	}
	t.Logf("built %s", bin)
}

// A go test run whose tests build storbench leaves nothing of it in the
// temporary directory: each run used to leave a 40 MB storbench-bin-*
// there for good (make cluster-test alone, one per run).
func TestStorbenchBinLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds storbench in a go test of its own")
	}
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	cmd := exec.Command("go", "test", "-count=1", "-v", "-run", "^TestStorbenchBinProbe$", "./internal/testutil/")
	cmd.Dir = root
	// BinEnv emptied: make test names its own build there, and the probe
	// must build.
	cmd.Env = append(os.Environ(), binProbeEnv+"=1", "TMPDIR="+tmp, "GOTMPDIR=", BinEnv+"=")
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "built "+tmp) {
		t.Fatalf("go test %v: the probe did not build storbench under %s:\n%s", err, tmp, out)
	}
	ents, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range ents {
		left = append(left, e.Name())
	}
	if len(left) > 0 {
		t.Errorf("the go test run left %v in its temporary directory", left)
	}
}

// make cluster-test builds the storbench its tests run (BinEnv) with the
// linker flag StorbenchBin gives, so that those runs too stay out of the
// user's catalog.
func TestMakefileBuildsForTests(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "-ldflags '"+forTests+"'") || !strings.Contains(string(b), BinEnv+"=") {
		t.Errorf("the Makefile gives %s no storbench built with -ldflags '%s'", BinEnv, forTests)
	}
}
