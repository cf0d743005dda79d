package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/storbench/storbench/internal/results"
)

// folderNotes says on stderr what a results folder lacks that the commands
// reading it would otherwise pass over: without a readable run.json (none,
// or one damaged or refused), the run's plan, settings and environment are
// unknown, and whether it ever finished. Paths that are not folders
// (benchdata files) are skipped.
func folderNotes(st *State, paths ...string) {
	for _, p := range paths {
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			continue
		}
		const unknown = "its plan, settings and environment are unknown, and whether the run finished"
		_, err := results.ReadRunInfo(p)
		switch {
		case err == nil:
		case errors.Is(err, fs.ErrNotExist):
			fmt.Fprintf(st.Stderr, "note: %s has no run.json: %s\n", p, unknown)
		default: // it names the file and what is wrong with it
			fmt.Fprintf(st.Stderr, "note: %v; %s\n", err, unknown)
		}
	}
}
