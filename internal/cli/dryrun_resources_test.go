package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// freeFigure is the free space or memory in a refusal.
var freeFigure = regexp.MustCompile(`[0-9.]+ [KMGTPE]?i?B (free|available)`)

// Issue 21 item 3 and issue 2's memory estimate: a plan too big for this
// machine - fio files past the free space of DIR, s3 objects past the
// memory - is refused by `run --dry-run` as the run refuses it: the same
// one line, exit 2, nothing written.
func TestDryRunChecksSpaceAndMemory(t *testing.T) {
	needFio(t)
	for _, c := range []struct {
		name, suite string
		want        []string
	}{
		{"fio files past the free space", "name: x\ndir: DATA\nphases:\n  - fio: {job: {rw: write, size: 100000T}}\n", []string{"lays out at least", "free"}},
		{"s3 objects past the memory", "name: x\nphases:\n  - s3: {op: get, objects: 900000000, host: '127.0.0.1:1', access_key: a, secret_key: b}\n", []string{"of memory", "available"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var msgs []string
			for _, dry := range []bool{false, true} {
				results, data := t.TempDir(), t.TempDir()
				p := filepath.Join(t.TempDir(), "suite.yaml")
				if err := os.WriteFile(p, []byte(strings.ReplaceAll(c.suite, "DATA", data)), 0o644); err != nil {
					t.Fatal(err)
				}
				args := []string{"run", p, "--results", results}
				if dry {
					args = append(args, "--dry-run")
				}
				st, out := testState()
				msg := refusedInOneLine(t, st, out, args, c.want)
				// What is free changes between the two (other work
				// on this machine): the rest of the line must not.
				msg = freeFigure.ReplaceAllString(strings.ReplaceAll(msg, data, "DATA"), "N $1")
				msgs = append(msgs, msg)
				for _, d := range []string{results, data} {
					if ents, _ := os.ReadDir(d); len(ents) != 0 {
						t.Errorf("%s was written: %v", d, ents)
					}
				}
			}
			if msgs[0] != msgs[1] {
				t.Errorf("--dry-run says\n  %s\nwhere the run says\n  %s", msgs[1], msgs[0])
			}
		})
	}
}
