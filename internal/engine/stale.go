package engine

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// Stale is what a run that was killed left in a target directory (see
// the leases): its directory DIR/storbench/<run id>, the marker that it
// made DIR/storbench, and its leases.
type Stale struct {
	Dir, RunID string
	// Count is how many files and directories DIR/storbench/<run id>
	// holds, itself included (nil when it is not there, or cannot be
	// read).
	Count *int64
	// Marker says the run's marker that it made DIR/storbench is there.
	Marker bool
	// Leases are the names of its leases in DIR/storbench.
	Leases []string
	// Holders says whose processes held them ("process 1234 on h").
	Holders []string
}

// Path is the run's directory, DIR/storbench/<run id>.
func (s Stale) Path() string { return filepath.Join(s.Dir, "storbench", s.RunID) }

// Text says in a few words what s is: "run R, killed (process 1234 on
// h gone), left 57 files and directories in DIR/storbench/R and its
// markers in DIR/storbench".
func (s Stale) Text() string {
	var what []string
	if s.Count != nil {
		what = append(what, fmt.Sprintf("%d files and directories in %s", *s.Count, s.Path()))
	}
	marks := "its lease"
	if s.Marker {
		marks = "its markers"
	}
	what = append(what, marks+" in "+filepath.Join(s.Dir, "storbench"))
	return fmt.Sprintf("run %s, killed (%s gone), left %s", s.RunID, strings.Join(s.Holders, ", "), strings.Join(what, " and "))
}

// FindStale lists the runs other than runID that left something in dir
// and were killed: every lease they hold there is a process's that is
// gone (holder.gone). A run with a lease held by a live process, or by a
// process this host cannot see, is going on, or may be: it is not listed.
// What cannot be read is not listed either.
func FindStale(dir, runID string) []Stale {
	top := levelsOf(dir, "storbench")
	fd, err := top.open()
	if err != nil {
		return nil
	}
	defer unix.Close(fd)
	names := readNames(fd)
	runs := map[string]*Stale{}
	live := map[string]bool{}
	var order []string
	writing := map[string][]string{}
	for _, name := range names {
		r, ok := leaseRun(name)
		if !ok || r == runID || live[r] {
			continue
		}
		if strings.HasSuffix(name, leaseWriting) {
			// A process killed while it wrote its lease, or one
			// writing it now: no verdict, and it goes with the run.
			writing[r] = append(writing[r], name)
			continue
		}
		h, ok := parseHolder(readSmall(fd, name))
		if !ok {
			live[r] = true // unreadable: cannot tell
			continue
		}
		if gone, _ := h.gone(); !gone {
			live[r] = true
			continue
		}
		s := runs[r]
		if s == nil {
			s = &Stale{Dir: dir, RunID: r}
			runs[r] = s
			order = append(order, r)
		}
		s.Leases = append(s.Leases, name)
		if who := fmt.Sprintf("process %d on %s", h.pid, h.host); !slices.Contains(s.Holders, who) {
			s.Holders = append(s.Holders, who)
		}
	}
	var out []Stale
	for _, r := range order {
		if live[r] {
			continue
		}
		s := runs[r]
		s.Leases = append(s.Leases, writing[r]...)
		s.Marker = slices.Contains(names, createdMarker+r)
		if n, ok := top.sub(r).count(); ok {
			s.Count = &n
		}
		out = append(out, *s)
	}
	return out
}

// leaseRun is the run a lease file's name is of.
func leaseRun(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, leasePrefix)
	if !ok {
		return "", false
	}
	i := strings.LastIndexByte(rest, '.')
	if i <= 0 {
		return "", false
	}
	return rest[:i], true
}

// readSmall reads the start of the file name in the directory open at
// dirfd (a lease: one line), never through a link.
func readSmall(dirfd int, name string) []byte {
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, 1024))
	return b
}

// RemoveStale removes what the killed run s left in its directory, after
// seeing again that it is stale: its run directory (through handles, as
// every removal), its marker and its leases, and DIR/storbench when the
// run made it and nothing else is there now. What could not be removed
// comes back as a *LeftoverError.
func RemoveStale(s Stale) error {
	still := slices.ContainsFunc(FindStale(s.Dir, ""), func(o Stale) bool { return o.RunID == s.RunID })
	if !still {
		return nil // removed meanwhile (another agent on this machine)
	}
	top := levelsOf(s.Dir, "storbench")
	var left []Leftover
	if l := top.removeEntry(s.RunID); l != nil {
		left = append(left, *l)
	}
	if len(left) > 0 {
		// The leases stay: the run is still named next time.
		return &LeftoverError{Items: left}
	}
	fd, err := top.open()
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			return nil
		}
		return &LeftoverError{Items: []Leftover{{What: "files and directories", Where: top.path(1), Reason: "cleanup: " + unwrapPath(err).Error()}}}
	}
	defer unix.Close(fd)
	for _, name := range s.Leases {
		_ = unix.Unlinkat(fd, name, 0)
	}
	if s.Marker {
		_ = unix.Unlinkat(fd, createdMarker+s.RunID, 0)
		if len(readNames(fd)) == 0 {
			_ = top.rmdir()
		}
	}
	return nil
}
