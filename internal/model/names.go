package model

import (
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
