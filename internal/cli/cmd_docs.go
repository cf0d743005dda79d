package cli

import (
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
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
				return doc.GenManTree(root, h, dir)
			case "markdown":
				return doc.GenMarkdownTree(root, dir)
			}
			return usageErr("docs: %q: want man or markdown", args[0])
		},
	}
	return cmd
}
