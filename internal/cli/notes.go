package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// folderNotes says on stderr what a results folder lacks that the commands
// reading it would otherwise pass over: without run.json, the run's plan,
// settings and environment are unknown, and whether it ever finished.
// Paths that are not folders (benchdata files) are skipped.
func folderNotes(st *State, paths ...string) {
	for _, p := range paths {
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(p, "run.json")); errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(st.Stderr, "note: %s has no run.json: its plan, settings and environment are unknown, and whether the run finished\n", p)
		}
	}
}
