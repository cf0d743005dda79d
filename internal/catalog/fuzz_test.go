package catalog

import (
	"reflect"
	"testing"
)

// A query parses or is refused, never panics, and a parsed query written
// back with String parses to itself (what check prints as its baseline
// selects the same runs).
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{"label=tuning=default,fs=xfs,last=10", "mount=rw,noatime", "since=30d,until=2026-01-02", "name=four*,hosts=8",
		"label=a=", "=", ",,,", "label==x", "since=2026-01-02T15:04:05Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ParseQuery([]string{s}, t0)
		if err != nil {
			return
		}
		back := q.String()
		if back == "(every run)" {
			return
		}
		q2, err := ParseQuery([]string{back}, t0)
		if err != nil {
			t.Fatalf("%q parsed, written back as %q, which does not parse: %v", s, back, err)
		}
		if !q.Since.Equal(q2.Since) || !q.Until.Equal(q2.Until) {
			t.Fatalf("%q: dates changed through %q", s, back)
		}
		q.Since, q.Until = q2.Since, q2.Until // equal instants, locations aside
		if !reflect.DeepEqual(q, q2) {
			t.Fatalf("%q -> %q -> %+v, want %+v", s, back, q2, q)
		}
	})
}

// A figure reference parses or is refused, and writes back as itself.
func FuzzParseFigure(f *testing.F) {
	for _, s := range []string{"seq-read/read/bw", "a/b/c/rate@host1", "*/read/p99.9", "//rate", "x/y/p50@"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseFigure(s)
		if err != nil {
			return
		}
		r2, err := ParseFigure(r.String())
		if err != nil || r2 != r {
			t.Fatalf("%q -> %q -> %+v (%v)", s, r.String(), r2, err)
		}
	})
}
