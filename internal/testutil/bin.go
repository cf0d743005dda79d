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

// StorbenchBin builds ./cmd/storbench once per test binary, for tests that
// run storbench as a real process, and returns its path.
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
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/storbench")
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
