package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// docs/reference is the commands' help as Markdown, generated, so it
// cannot drift from what `storbench CMD --help` says: a change of a flag or
// a help text fails here until `make docs` writes it again.
func TestDocsReferenceIsTheHelp(t *testing.T) {
	dir := t.TempDir()
	st, out := testState()
	if err := Execute(context.Background(), st, []string{"docs", "markdown", dir}); err != nil {
		t.Fatalf("storbench docs markdown: %v\n%s", err, out)
	}
	committed := filepath.Join("..", "..", "docs", "reference")
	names := func(d string) []string {
		ents, _ := os.ReadDir(d)
		var out []string
		for _, e := range ents {
			out = append(out, e.Name())
		}
		return out
	}
	if got, want := names(committed), names(dir); !slices.Equal(got, want) {
		t.Fatalf("docs/reference holds %v, the help gives %v: run make docs", got, want)
	}
	for _, n := range names(dir) {
		want, _ := os.ReadFile(filepath.Join(dir, n))
		got, _ := os.ReadFile(filepath.Join(committed, n))
		if !bytes.Equal(got, want) {
			t.Errorf("docs/reference/%s differs from the help: run make docs", n)
		}
	}
}
