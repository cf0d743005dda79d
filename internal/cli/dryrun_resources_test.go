package cli

import (
	"context"
	"net"
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
	t.Parallel()
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

// A dry run that cannot reach its agents plans all the same and says
// their free space and memory were not checked (a chart's Job is checked
// before its agents exist); one whose agent answers and refuses (a wrong
// token) is refused as the run would refuse it: exit 2, one line. Before,
// the refusal was taken for an unreachable agent and the dry run passed.
func TestDryRunAgentsUnreachableOrRefusing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "token"), filepath.Join(dir, "bad-token")
	_ = os.WriteFile(good, []byte("dry-run-agent-token-0123456789\n"), 0o600)
	_ = os.WriteFile(bad, []byte("not-the-token-at-all-0123456789\n"), 0o600)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	agent := l.Addr().String()
	l.Close()
	if _, err := startAgentIn(t, AgentServeOptions{Listen: agent, TokenFile: good, MetricsListen: "127.0.0.1:0"}); err != nil {
		t.Fatal(err)
	}
	l, _ = net.Listen("tcp", "127.0.0.1:0")
	nobody := l.Addr().String()
	l.Close()
	suite := writeSuite(t, "name: x\ndir: "+t.TempDir()+"\nphases:\n  - md: {items: 10}\n")

	st, out := testState()
	if err := Execute(context.Background(), st, []string{"run", suite, "--dry-run", "--agents", nobody, "--token-file", good}); err != nil {
		t.Fatalf("unreachable agent: %v\n%s", err, out)
	}
	if !strings.Contains(out.String(), "free space and memory not checked: agents: ") {
		t.Errorf("unreachable agent: the dry run does not say what it did not check:\n%s", out)
	}
	st, out = testState()
	refusedInOneLine(t, st, out, []string{"run", suite, "--dry-run", "--agents", agent, "--token-file", bad}, []string{"agents: ", "token"})
}
