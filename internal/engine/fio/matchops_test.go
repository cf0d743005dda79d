package fio

import "testing"

// The operations a controller takes from a fio phase's agents (issue 33):
// fio's directions, alone or after one of the job file's jobs (by section
// or by name=), or after one job of a section split for a stonewall; no
// other name, an escape sequence least of all.
func TestMatchOps(t *testing.T) {
	p := fioPhase(t, t.TempDir(), "two", "[global]\nsize=1m\n[seq]\nrw=write\n[other job]\nname=rand w\nrw=randwrite\n", Overrides{})
	match := Engine{}.MatchOps(p)
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
	if (Engine{}).MatchOps(fioPhase(t, t.TempDir(), "bad", "[x]\nrw=write\ninclude y\n", Overrides{})) != nil {
		t.Error("a matcher for a job file that does not read")
	}
}
