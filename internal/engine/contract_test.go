package engine

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The contract stays small: an engine, its plan, its prepared phase, a
// barrier, and at most six optional hooks across a plan or a prepared
// phase. A question about one phase is a method of the plan (with
// BasePlan's answer for engines that have none), a fact about the engine
// a field of Info, never another interface a new contributor must learn.
func TestContractIsSmall(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	decl := regexp.MustCompile(`(?m)^type ([A-Z][A-Za-z]*) interface`)
	var names []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range decl.FindAllStringSubmatch(string(b), -1) {
			names = append(names, m[1])
		}
	}
	if len(names) > 10 {
		t.Errorf("internal/engine declares %d interfaces, want at most 10: %s", len(names), strings.Join(names, ", "))
	}
}
