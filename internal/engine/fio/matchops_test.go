package fio

import (
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/engine"
)

// The operations a controller takes from a fio phase's agents (issue 33):
// fio's directions, alone or after one of the job file's jobs (by section
// or by name=), or after one job of a section split for a stonewall; no
// other name, an escape sequence least of all.
func TestMatchOps(t *testing.T) {
	p := fioPhase(t, t.TempDir(), "two", "[global]\nsize=1m\n[seq]\nrw=write\n[other job]\nname=rand w\nrw=randwrite\n", Overrides{})
	reg := engine.Registry{"fio": Engine{}}
	match, _ := reg.MatchOps(p)
	if match == nil {
		t.Fatal("no matcher for a phase whose job file reads")
	}
	for op, want := range map[string]bool{
		"read": true, "write": true, "trim": true, "seq write": true, "other job read": true, "rand w write": true, "seq.job3 write": true,
		"": false, "sync": false, "global write": false, "nojob write": false, "seq write\x1b[2J": false, "\x1b]0;x\x07 write": false, "seq.jobX write": false,
	} {
		if got := match(op); got != want {
			t.Errorf("operation %q taken: %v, want %v", op, got, want)
		}
	}
	if _, known := reg.MatchOps(fioPhase(t, t.TempDir(), "bad", "[x]\nrw=write\ninclude y\n", Overrides{})); known {
		t.Error("a matcher for a job file that does not read")
	}
}

// OpNames says the directions a phase of one job records, from its rw=
// (fio's default: read), so that a limit on another is refused before
// any load; a job file of several jobs, whose operations are named after
// the jobs that did I/O, gets none.
func TestOpNames(t *testing.T) {
	for job, want := range map[string]string{
		"[j]\nsize=1m\n":                                  "read",
		"[j]\nsize=1m\nrw=randread\n":                     "read",
		"[global]\nrw=write\n[j]\nsize=1m\n":              "write",
		"[j]\nsize=1m\nrw=randrw:8\n":                     "read write",
		"[j]\nsize=1m\nreadwrite=trimwrite\n":             "trim write",
		"[j]\nsize=1m\nrw=randtrim\n":                     "trim",
		"[a]\nsize=1m\nrw=write\n[b]\nsize=1m\nrw=read\n": "",
	} {
		got, _ := (engine.Registry{"fio": Engine{}}).OpNames(fioPhase(t, t.TempDir(), "p", job, Overrides{}))
		if strings.Join(got, " ") != want {
			t.Errorf("%q: %v, want %q", job, got, want)
		}
	}
}
