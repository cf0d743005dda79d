package model_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var watchOnce sync.Once

// watchSources looks at every Go file of the repository through the os
// package, so that go test's cache knows this package's result depends
// on them: `go list` reads them in a process of its own, which the cache
// does not see, and a cached pass of TestLayers would hide a new import.
func watchSources(t *testing.T) {
	t.Helper()
	watchOnce.Do(func() {
		n := 0
		err := filepath.WalkDir(filepath.Join("..", ".."), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && p != filepath.Join("..", "..") && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(p, ".go") {
				if _, err := os.Stat(p); err != nil {
					return err
				}
				n++
			}
			return nil
		})
		if err != nil || n < 100 {
			t.Fatalf("the repository's Go files: %d found, %v", n, err)
		}
	})
}
