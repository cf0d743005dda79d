// Package hosts expands host lists as the seed documents write them: several
// arguments, comma-separated lists, and numeric ranges in braces anywhere in a
// name ("client{1...8}:7761", "10.0.0.{10...13}", "node{01...16}").
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
	var out []string
	seen := map[string]bool{}
	for _, arg := range args {
		for _, part := range strings.Split(arg, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			names, err := expandOne(part, limit-len(out))
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

func expandOne(s string, room int) ([]string, error) {
	if strings.ContainsAny(s, "{}") && rangeRE.FindStringIndex(s) == nil {
		return nil, fmt.Errorf("host %q: malformed range (write {1...8})", s)
	}
	loc := rangeRE.FindStringSubmatchIndex(s)
	if loc == nil {
		if room < 1 {
			return nil, fmt.Errorf("host list expands to more than the limit; raise it if this is intended")
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
		return nil, fmt.Errorf("host %q expands to %d names, over the limit of %d; raise the limit if this is intended", s, hi-lo+1, room)
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
		rest, err := expandOne(prefix+n+suffix, room-len(out))
		if err != nil {
			return nil, err
		}
		out = append(out, rest...)
	}
	return out, nil
}
