// Package hosts expands host lists as the seed documents write them: several
// arguments, comma-separated lists, numeric ranges in braces anywhere in a
// name ("client{1...8}:7761", "10.0.0.{10...13}", "node{01...16}"), and
// Slurm host lists ("node[01-16,20]:7761"). It also reads host files:
// storbench's agents files and MPI hostfiles (hostfile.go).
package hosts

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// DefaultLimit is the most names an expansion may produce unless the caller
// raises it: a typo such as {1...10000} should fail, not open 10,000 connections.
const DefaultLimit = 1024

var rangeRE = regexp.MustCompile(`\{(\d+)\.\.\.(\d+)\}`)

// Expand turns the given arguments into a list of names, in order, with
// duplicates removed. limit caps the result (0 means DefaultLimit).
func Expand(args []string, limit int) ([]string, error) {
	if limit <= 0 {
		limit = DefaultLimit
	}
	return expand(args, limit, limit)
}

// expand is Expand with room names left under the limit.
func expand(args []string, room, limit int) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, arg := range args {
		for _, part := range splitList(arg) {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			names, err := expandEntry(part, room-len(out), limit)
			if err != nil {
				return nil, err
			}
			for _, n := range names {
				if !seen[n] {
					seen[n] = true
					out = append(out, n)
				}
			}
		}
	}
	if len(out) == 0 && len(args) > 0 {
		return nil, fmt.Errorf("host list %q names no host", strings.Join(args, " "))
	}
	return out, nil
}

// expandEntry expands one entry of a list: its Slurm bracket groups, then
// its brace ranges, into at most room names.
func expandEntry(s string, room, limit int) ([]string, error) {
	names, err := expandSlurm(s, room, limit)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range names {
		more, err := expandOne(n, room-len(out), limit)
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	return out, nil
}

// expandOne expands the brace ranges of one name into at most room names.
func expandOne(s string, room, limit int) ([]string, error) {
	if strings.ContainsAny(s, "{}") && rangeRE.FindStringIndex(s) == nil {
		return nil, fmt.Errorf("host %q: malformed range (write {1...8})", s)
	}
	loc := rangeRE.FindStringSubmatchIndex(s)
	if loc == nil {
		if room < 1 {
			return nil, overLimit(s, 1, room, limit)
		}
		return []string{s}, nil
	}
	loText, hiText := s[loc[2]:loc[3]], s[loc[4]:loc[5]]
	lo, err1 := strconv.Atoi(loText)
	hi, err2 := strconv.Atoi(hiText)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("host %q: range bounds too large", s)
	}
	if hi < lo {
		return nil, fmt.Errorf("host %q: range {%d...%d} is empty", s, lo, hi)
	}
	if hi-lo+1 > room {
		return nil, overLimit(s, uint64(hi-lo+1), room, limit)
	}
	width := 0
	if len(loText) > 1 && loText[0] == '0' {
		width = len(loText)
	}
	prefix, suffix := s[:loc[0]], s[loc[1]:]
	var out []string
	for i := lo; i <= hi; i++ {
		n := strconv.Itoa(i)
		for len(n) < width {
			n = "0" + n
		}
		rest, err := expandOne(prefix+n+suffix, room-len(out), limit)
		if err != nil {
			return nil, err
		}
		out = append(out, rest...)
	}
	return out, nil
}
