package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/storbench/storbench/internal/run"
)

// defaultDir is where `storbench fio` and `storbench md` work when -d is
// left out: the folder `storbench run`'s quick suite uses, made in the
// current directory, so the first command works on any machine. The md
// and fio engines declare their -d with this default (their flags); the
// test of this default (TestDefaultDirectoryWorksAnywhere) holds them
// together.
const defaultDir = "storbench-data"

// targetDir returns the absolute directory a fio or md run measures. It
// makes nothing: the default is made by makeDefaultDir once the
// command's own checks have passed. With agents the default is refused,
// since this machine's working directory says nothing of the agents'.
func targetDir(d string, hosts []string, a AgentsOptions) (string, error) {
	if d == defaultDir && (len(hosts) > 0 || a.remote()) {
		return "", usageErr("-d: name the directory to measure on the agents' hosts (the default, ./%s, is for a run on this machine)", defaultDir)
	}
	abs, err := filepath.Abs(d)
	if err != nil {
		return "", usageErr("-d %s: %v", d, err)
	}
	return abs, nil
}

// makeTargetDir makes dir, the absolute path of -d as given, when -d was
// left out (makeDefaultDir); a directory the user named is theirs to make.
func makeTargetDir(given, dir string) (undo func(*run.Result), err error) {
	if given != defaultDir {
		return func(*run.Result) {}, nil
	}
	return makeDefaultDir(dir, "./"+defaultDir+" (the default -d)")
}

// makeDefaultDir makes dir, a default target directory (./storbench-data),
// when it is missing; what names it in the error when it cannot be made.
// The run refuses a target directory that does not exist, and some bad
// input only the run finds, after that (a job file fio rejects, more
// workers than md runs); so undo removes the directory made here when
// the run did not start (no result: bad input, or an interrupt before
// the first phase), and bad input leaves nothing in the working
// directory. A directory that was there is never removed, nor one that
// is no longer empty.
func makeDefaultDir(dir, what string) (undo func(*run.Result), err error) {
	if _, err := os.Lstat(dir); !errors.Is(err, fs.ErrNotExist) {
		return func(*run.Result) {}, nil // there (or unreadable: the run says why)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, usageErr("create %s: %v", what, err)
	}
	return func(res *run.Result) {
		if res == nil {
			_ = os.Remove(dir)
		}
	}, nil
}
