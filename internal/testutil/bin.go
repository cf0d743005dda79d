package testutil

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// forTests is the linker flag that builds storbench for tests: as in a
// test binary, the user's catalog is then no default (catalog.ForTests),
// whatever environment a test gives the process.
const forTests = "-X github.com/storbench/storbench/internal/catalog.builtForTests=1"

// BinEnv names a storbench binary make cluster-test built with the
// linker flag StorbenchBin gives (forTests: TestMakefileBuildsForTests),
// which StorbenchBin then returns instead of building one.
const BinEnv = "STORBENCH_TEST_BIN"

// StorbenchBin builds ./cmd/storbench once per test binary, for tests that
// run storbench as a real process, and returns its path. It is the only
// build of storbench a test makes (TestTestsBuildStorbenchOneWay): the
// binary never writes into the catalog of the user who runs the tests.
// The binary goes beside the test binary when that lives in go test's
// work directory (go-build*, which go test removes when it ends), so a
// run leaves no 40 MB copy behind; a test binary run by hand (go test -c)
// gets a temporary directory, which stays.
//
// make cluster-test builds it once, the same way, for its four test
// binaries (each build 17-90 s of a file system's budget on the loaded
// test machine), and names it in BinEnv.
func StorbenchBin(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		if p := os.Getenv(BinEnv); p != "" {
			binPath, binErr = ownName(p)
			return
		}
		root, err := RepoRoot()
		if err != nil {
			binErr = err
			return
		}
		dir, err := binDir()
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "storbench")
		cmd := exec.Command("go", "build", "-ldflags", forTests, "-o", binPath, "./cmd/storbench")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v: %s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// ownName gives the binary at p a path of this test binary's own (a hard
// link, else a copy, in binDir): make test runs several packages at once
// on one build, and a test that finds its agents by the path they run
// from (TestSlurmRealCluster's count, a wait for every agent to exit)
// must not count another package's.
func ownName(p string) (string, error) {
	if _, err := os.Stat(p); err != nil {
		return "", err
	}
	dir, err := binDir()
	if err != nil {
		return "", err
	}
	own := filepath.Join(dir, "storbench")
	if err := os.Link(p, own); err == nil {
		return own, nil
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return "", err
	}
	return own, os.WriteFile(own, b, 0o755)
}

// binDir is where StorbenchBin builds: the test binary's own directory
// when go test made it (its work directory, WORK/b001/pkg.test), else a
// new temporary directory.
func binDir() (string, error) {
	if exe, err := os.Executable(); err == nil {
		dir := filepath.Dir(exe)
		if strings.HasPrefix(filepath.Base(filepath.Dir(dir)), "go-build") {
			return dir, nil
		}
	}
	return os.MkdirTemp("", "storbench-bin-")
}

// RepoRoot is the module's root: the first directory with a go.mod at or
// above the working directory (a test's is its package's directory).
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.mod not found above the working directory")
		}
		dir = parent
	}
}
