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

// Given a build in BinEnv (make test's one build for every package), each
// test binary runs it from a path of its own: make test runs packages at
// once, and one that counted its agents by their path counted another's
// (TestSlurmRealCluster: "4 agents run, want 3").
func TestStorbenchBinGivenIsEachPackagesOwn(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a go test of its own")
	}
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	given := filepath.Join(t.TempDir(), "storbench")
	if err := os.WriteFile(given, []byte("#!/bin/sh\necho storbench given\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "test", "-count=1", "-v", "-run", "^TestStorbenchBinProbe$", "./internal/testutil/")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), binProbeEnv+"=1", BinEnv+"="+given)
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	_, ran, _ := strings.Cut(string(out), "built ")
	ran, _, _ = strings.Cut(ran, "\n")
	if err != nil || ran == "" || ran == given {
		t.Fatalf("go test %v: the probe ran the given storbench from %q, want a path of its own:\n%s", err, ran, out)
	}
}
