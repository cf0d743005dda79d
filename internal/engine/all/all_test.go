package all

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/model"
)

// engineType finds the engine a package defines.
var engineType = regexp.MustCompile(`(?m)^type Engine struct`)

// The list holds every engine package of internal/engine, under the name
// of its package (the name suites and results use), so an engine that is
// written and not listed fails here; adding one is its package and its
// line in Engines.
func TestEveryEngineListed(t *testing.T) {
	var want []model.EngineName
	dirs, err := filepath.Glob("../*")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		files, _ := filepath.Glob(filepath.Join(d, "*.go"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err == nil && !strings.HasSuffix(f, "_test.go") && engineType.Match(b) {
				want = append(want, model.EngineName(filepath.Base(d)))
				break
			}
		}
	}
	slices.Sort(want)
	got := Engines().Names()
	if len(want) < 3 || !slices.Equal(got, want) {
		t.Errorf("engines %v, want the engine packages %v", got, want)
	}
	names := make([]string, len(got))
	for i, n := range got {
		names[i] = string(n)
	}
	if _, err := Engines().Lookup("nfs-nowhere"); err == nil || err.Error() != `unknown engine "nfs-nowhere" (known: `+strings.Join(names, ", ")+")" {
		t.Errorf("unknown engine: %v", err)
	}
}
