package model

import (
	"fmt"
	"regexp"
	"strings"
)

var unsafeRE = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// SafeName turns a run, phase or host name into a path element: the name
// results folders, host folders and agents' names share. Here, below the
// packages that write results (results) and those that name hosts
// (cluster), so neither reaches into the other for it.
func SafeName(s string) string {
	s = strings.Trim(unsafeRE.ReplaceAllString(s, "-"), "-.")
	if s == "" {
		return "run"
	}
	return s
}

// MaxRunNameBytes is the longest run name a results folder can be named
// after: a file name has at most 255 bytes (NAME_MAX), and the run id and
// '_' come first.
const MaxRunNameBytes = 255 - len("20261121T051502Z-3fa9_")

// CheckRunName refuses a run name (a suite's name) its results folder
// cannot be named after, before anything is made.
func CheckRunName(name string) error {
	if n := len(SafeName(name)); n > MaxRunNameBytes {
		return fmt.Errorf("%.20q... is %d bytes long: give a name of at most %d bytes (it names the results folder, after the run id)", name, n, MaxRunNameBytes)
	}
	return nil
}
