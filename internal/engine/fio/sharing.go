package fio

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// share applies what a shared or read_from phase needs to the job file,
// and refuses what would break it:
//
//   - unlink and unlink_each_loop, in both: fio would remove, at a job's
//     end, files other hosts are still working on or a later phase reads.
//   - a shared phase opens its files with create_on_open=1 (refusing 0):
//     without it, each host's fio lays out a file shorter than its region
//     before starting, and for a write job that means unlinking it, under
//     the hosts already writing it.
//   - a read_from phase reads only (rw read or randread, no create_only, no
//     opendir: which files another host wrote must be known), and opens no
//     file it does not find: allow_file_create=0 (refusing 1). fio also
//     runs with --readonly there.
func (jf *JobFile) share(ps *Params) error {
	if !ps.Shared && ps.ReadFrom == "" {
		return nil
	}
	what := "a shared phase"
	if !ps.Shared {
		what = "a read_from phase"
	}
	for _, s := range jf.Sections {
		if isGlobal(s.Name) {
			continue
		}
		for _, k := range []string{"unlink", "unlink_each_loop"} {
			if jf.flag(s, k) {
				return fmt.Errorf("[%s]: %s removes files other hosts or later phases use; leave it out of %s", s.Name, k, what)
			}
		}
		if v, ok := jf.Lookup(s, "create_on_open"); ps.Shared && ok && strings.TrimSpace(v) == "0" {
			return fmt.Errorf("[%s]: create_on_open=0: every host's fio would lay out the shared file (unlink and re-create it) under the others; a shared phase runs with create_on_open=1", s.Name)
		}
		if ps.ReadFrom == "" {
			continue
		}
		rw, _ := jf.Lookup(s, "rw", "readwrite")
		mode, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(rw)), ":")
		if mode != "" && mode != "read" && mode != "randread" {
			return fmt.Errorf("[%s]: rw=%s: read_from: %s reads what another host wrote; it is for read phases (rw=read or randread)", s.Name, rw, ReadFromNeighbour)
		}
		if jf.flag(s, "create_only") {
			return fmt.Errorf("[%s]: create_only lays out files; read_from: %s reads files another host wrote", s.Name, ReadFromNeighbour)
		}
		if _, ok := jf.Lookup(s, "opendir"); ok {
			return fmt.Errorf("[%s]: opendir: read_from: %s must know which files the other host wrote; name them with filename= or filename_format=", s.Name, ReadFromNeighbour)
		}
		if v, ok := jf.Lookup(s, "allow_file_create"); ok && strings.TrimSpace(v) != "0" {
			return fmt.Errorf("[%s]: allow_file_create=%s: a read_from phase creates no file in another host's place", s.Name, v)
		}
	}
	g := jf.Global()
	if ps.Shared {
		g.Set("create_on_open", "1")
	}
	if ps.ReadFrom != "" {
		g.Set("allow_file_create", "0")
	}
	return nil
}

// createShared makes, empty, every file the jobs of a shared phase open
// (fileNames) that is not there yet, in dataDir: the phase's first host
// does it while preparing, so every host's jobs, started together, open
// a file that exists. Each job would create it as it opens it
// (create_on_open=1), and an open with O_CREAT on several clients at once
// is a race some file systems' clients lose: MooseFS's answers EEXIST to
// all but one, where a local file system opens the file. IOR's rank 0
// creates the shared file before the other ranks open it, alike.
func createShared(jf *JobFile, dataDir string) error {
	names, err := jf.fileNames()
	if err != nil {
		return err
	}
	for name := range names {
		f, err := os.OpenFile(filepath.Join(dataDir, name), os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			return fmt.Errorf("the shared file %s, which the phase's first host makes before its jobs open it: %v", name, unwrapPath(err))
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	return nil
}
