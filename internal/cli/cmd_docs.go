package cli

import (
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/spf13/pflag"
)

// newDocsCommand builds `storbench docs man|markdown DIR`, hidden: the
// release writes the man pages with it and `make docs` the command
// reference under docs/commands/, both from the commands' own help, so
// neither can drift from what `storbench CMD --help` says.
func newDocsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:    "docs man|markdown DIR",
		Short:  "Write the man pages or the Markdown command reference into DIR",
		Hidden: true,
		Args:   cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			root.DisableAutoGenTag = true
			dir := args[1]
			if dir == "" {
				return usageErr("docs: DIR is empty: name the folder to write into")
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return usageErr("docs: %v", err)
			}
			switch args[0] {
			case "man":
				// The pages' date is SOURCE_DATE_EPOCH's where it is set
				// (the release sets the commit's), so a commit builds the
				// same pages.
				h := &doc.GenManHeader{Title: "STORBENCH", Section: "1", Source: "storbench " + version(), Manual: "storbench manual"}
				plainForMan(root)
				return doc.GenManTree(root, h, dir)
			case "markdown":
				return doc.GenMarkdownTree(root, dir)
			}
			return usageErr("docs: %q: want man or markdown", args[0])
		},
	}
	return cmd
}

// manEscaper escapes what Markdown would read as markup in the help's
// plain text: cobra writes a man page by passing the help through a
// Markdown renderer (go-md2man), which took "<run id>" for an HTML tag
// and dropped it, and "host[:port] (default port 7761)" for a link.
var manEscaper = strings.NewReplacer(`\`, `\\`, "<", `\<`, ">", `\>`, "[", `\[`, "]", `\]`, "*", `\*`, "_", `\_`, "`", "\\`")

// manText escapes a command's long help for the man page, but for the
// lines Markdown takes as code (indented by a tab or four spaces: cobra's
// completion commands show their commands so), which it shows as they are.
func manText(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "\t") && !strings.HasPrefix(l, "    ") {
			lines[i] = manEscaper.Replace(l)
		}
	}
	return strings.Join(lines, "\n")
}

// plainForMan escapes the texts of every command and flag under root for
// the man pages (this process writes them and ends: the tree is not
// used again).
func plainForMan(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Short, c.Long = manEscaper.Replace(c.Short), manText(c.Long)
		for _, fs := range []*pflag.FlagSet{c.LocalFlags(), c.PersistentFlags()} {
			fs.VisitAll(func(f *pflag.Flag) {
				if !strings.HasPrefix(f.Usage, "\x00") {
					f.Usage = "\x00" + manEscaper.Replace(f.Usage)
				}
			})
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	// A flag is seen by every command that inherits it: escaped once,
	// marked meanwhile, unmarked now.
	var unmark func(c *cobra.Command)
	unmark = func(c *cobra.Command) {
		for _, fs := range []*pflag.FlagSet{c.LocalFlags(), c.PersistentFlags()} {
			fs.VisitAll(func(f *pflag.Flag) { f.Usage = strings.TrimPrefix(f.Usage, "\x00") })
		}
		for _, sub := range c.Commands() {
			unmark(sub)
		}
	}
	unmark(root)
}
