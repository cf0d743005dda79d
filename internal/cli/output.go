package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/storbench/storbench/internal/infile"
)

// checkOutput refuses, before any work, a file a command was told to
// write (flag names it) that it could not: its directory missing, not a
// directory, or not writable (a read-only file system, no permission), or
// the path itself a directory or something other than a file (writing
// there would replace a FIFO or a device by a file). "" and "-" (stdout)
// pass. Found only when writing, each was exit 1 with the rename's text.
func checkOutput(flag, path string) error {
	if path == "" || path == "-" {
		return nil
	}
	if fi, err := os.Stat(path); err == nil {
		switch {
		case fi.IsDir():
			return usageErr("%s %s is a directory: give the name of a file to write", flag, path)
		case !fi.Mode().IsRegular():
			return usageErr("%s %s is %s: give the name of a file to write", flag, path, infile.Kind(fi.Mode()))
		}
	}
	return checkWritableDir(flag, path, filepath.Dir(path))
}

// checkWritableDir refuses a directory path (of the file named by flag)
// that a file cannot be made in.
func checkWritableDir(flag, path, dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return usageErr("%s %s: the directory %s does not exist", flag, path, dir)
	case err != nil:
		return usageErr("%s %s: %v", flag, path, err)
	case !fi.IsDir():
		return usageErr("%s %s: %s is not a directory", flag, path, dir)
	}
	if err := syscall.Access(dir, 2 /* W_OK */); err != nil {
		return usageErr("%s %s: cannot write in %s (%v)", flag, path, dir, err)
	}
	return nil
}
