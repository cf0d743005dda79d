package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// docs/reference is the commands' help as Markdown, generated, so it
// cannot drift from what `storbench CMD --help` says: a change of a flag or
// a help text fails here until `make docs` writes it again.
func TestDocsReferenceIsTheHelp(t *testing.T) {
	t.Parallel()
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

// The man pages say every word of the help (issue 36): cobra renders the
// help through Markdown, which dropped "<run id>" from -d ("files go under
// DIR/storbench// and ...") as an HTML tag and read "host[:port] (default
// port 7761)" as a link ("host:port ⟨default port 7761⟩"). Every flag's
// text and every command's description is in its page as written.
func TestManPagesSayWhatHelpSays(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st, out := testState()
	if err := Execute(context.Background(), st, []string{"docs", "man", dir}); err != nil {
		t.Fatalf("storbench docs man: %v\n%s", err, out)
	}
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	roff := strings.NewReplacer(`\fB`, "", `\fP`, "", `\fI`, "", `\&`, "", `\(aq`, "'", `\-`, "-", `\\`, `\`)
	checked := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		// cobra's completion commands are written in Markdown already.
		if c.Hidden || !c.IsAvailableCommand() && c.HasParent() || strings.Contains(c.CommandPath(), " completion") {
			return
		}
		b, err := os.ReadFile(filepath.Join(dir, strings.ReplaceAll(c.CommandPath(), " ", "-")+".1"))
		if err != nil {
			t.Errorf("%s: no man page: %v", c.CommandPath(), err)
			return
		}
		var text []string
		for _, l := range strings.Split(string(b), "\n") {
			if !strings.HasPrefix(l, ".") { // a request of roff's, not text
				text = append(text, roff.Replace(l))
			}
		}
		page := flat(strings.Join(text, "\n"))
		if strings.Contains(page, "⟨") || strings.Contains(string(b), `\[la]`) {
			t.Errorf("%s: the page shows a link: the help's text was read as Markdown", c.CommandPath())
		}
		want := []string{c.Long}
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden {
				want = append(want, f.Usage)
			}
		})
		for _, w := range want {
			if w = flat(w); w != "" && !strings.Contains(page, w) {
				t.Errorf("%s: the man page lacks the help's words %q", c.CommandPath(), w)
			}
			checked++
		}
	}
	walk(NewRoot(st))
	if checked < 100 {
		t.Fatalf("only %d texts checked: is the walk of the commands right?", checked)
	}
}
