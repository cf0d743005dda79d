package cli

import (
	"os"
	"path/filepath"
)

// defaultDir is where `storbench fio` and `storbench md` work when -d is
// left out: the folder `storbench run`'s quick suite uses, made in the
// current directory, so the first command works on any machine. The md
// and fio engines declare their -d with this default (their flags); the
// test of this default (TestDefaultDirectoryWorksAnywhere) holds them
// together.
const defaultDir = "storbench-data"

// targetDir returns the absolute directory a fio or md run measures. The
// default is made here when the run is local; with agents it is refused,
// since this machine's working directory says nothing of the agents'.
func targetDir(d string, hosts []string, a AgentsOptions) (string, error) {
	if d == defaultDir {
		if len(hosts) > 0 || a.remote() {
			return "", usageErr("-d: name the directory to measure on the agents' hosts (the default, ./%s, is for a run on this machine)", defaultDir)
		}
		if err := os.MkdirAll(defaultDir, 0o755); err != nil {
			return "", usageErr("create ./%s (the default -d): %v", defaultDir, err)
		}
	}
	abs, err := filepath.Abs(d)
	if err != nil {
		return "", usageErr("-d %s: %v", d, err)
	}
	return abs, nil
}
