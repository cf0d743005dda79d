package testutil

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

// StorbenchBin builds ./cmd/storbench once per test binary, for tests that
// run storbench as a real process, and returns its path. It is the only
// build of storbench a test makes (TestTestsBuildStorbenchOneWay): the
// binary never writes into the catalog of the user who runs the tests.
func StorbenchBin(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		root, err := RepoRoot()
		if err != nil {
			binErr = err
			return
		}
		dir, err := os.MkdirTemp("", "storbench-bin-")
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
