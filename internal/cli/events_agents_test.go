package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/cluster"
	"github.com/storbench/storbench/internal/results"
	"github.com/storbench/storbench/internal/testutil"
)

// An event command on an agent host, through real agent processes: on an
// agent started without --allow-events the suite is refused before any
// load (exit 2, one line naming the agent and the flag, no results
// folder, nothing run or written); on one started with it the command
// runs there - in the agent's own process tree, under the supervisor the
// agent started it with, as the command line of its parent's parent
// shows - and summary.json records it on that host.
// storbench's own action (a cache drop) runs on the agent without it.
func TestEventOnAgentNeedsAllowEvents(t *testing.T) {
	t.Parallel()
	needFio(t)
	if os.Geteuid() != 0 {
		t.Skip("the event that drops an agent's caches needs root (CI runs as root)")
	}
	const token = "sb-events-token-0123456789abcdef"
	bin := testutil.StorbenchBin(t)
	plain := testutil.AgentProcess(t, bin, token)
	allowing := testutil.AgentProcess(t, bin, token, "--allow-events")
	names := cluster.HostNames([]string{plain, allowing})
	tok := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tok, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mark := filepath.Join(t.TempDir(), "ran")
	suiteOn := func(host, data string) string {
		p := filepath.Join(t.TempDir(), "suite.yaml")
		s := fmt.Sprintf(`name: agent-event
dir: %s
agents: [%s, %s]
phases:
  - name: read
    fio: {runtime: 3s, job: {rw: read, bs: 4k, size: 1m, time_based: 1}}
    events:
      - {name: probe, at: 1s, host: %s, command: "tr '\\0' ' ' < /proc/$(cut -d' ' -f4 /proc/$PPID/stat)/cmdline > %s; echo $STORBENCH_PHASE"}
      - {name: drop, at: 1s, host: %s, drop_caches: true}
`, data, plain, allowing, host, mark, names[0])
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}

	t.Run("refused without --allow-events", func(t *testing.T) {
		data, res := t.TempDir(), t.TempDir()
		st, out := testState()
		refusedInOneLine(t, st, out, []string{"run", suiteOn(names[0], data), "--token-file", tok, "--results", res},
			[]string{"event probe", "agent " + names[0] + " does not run event commands", "--allow-events"})
		for _, d := range []string{data, res} {
			if ents, _ := os.ReadDir(d); len(ents) != 0 {
				t.Errorf("%s was written: %v", d, ents)
			}
		}
		if _, err := os.Stat(mark); err == nil {
			t.Error("the event's command ran")
		}
	})

	t.Run("refused on a host that is not an agent", func(t *testing.T) {
		data, res := t.TempDir(), t.TempDir()
		st, out := testState()
		refusedInOneLine(t, st, out, []string{"run", suiteOn("nosuchhost", data), "--token-file", tok, "--results", res},
			[]string{"event probe", "host nosuchhost is not one of the run's agents", names[0], names[1]})
		for _, d := range []string{data, res} {
			if ents, _ := os.ReadDir(d); len(ents) != 0 {
				t.Errorf("%s was written: %v", d, ents)
			}
		}
	})

	t.Run("runs on the agent with --allow-events", func(t *testing.T) {
		data, res := t.TempDir(), t.TempDir()
		st, out := testState()
		// The agent's address as written in the suite names it too.
		if err := Execute(context.Background(), st, []string{"run", suiteOn(allowing, data), "--token-file", tok, "--results", res}); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		b, err := os.ReadFile(mark)
		if err != nil || !strings.Contains(string(b), " agent ") || !strings.Contains(string(b), allowing) || !strings.Contains(string(b), "--allow-events") {
			t.Errorf("the command did not run under the allowing agent: %q (%v)", b, err)
		}
		folders, _ := filepath.Glob(filepath.Join(res, "*"))
		if len(folders) != 1 {
			t.Fatalf("results: %v", folders)
		}
		sum, err := results.ReadSummary(folders[0])
		if err != nil {
			t.Fatal(err)
		}
		evs := sum.Phases[0].Events
		if len(evs) != 2 || evs[0].Host != names[1] || evs[0].Exit == nil || *evs[0].Exit != 0 || strings.TrimSpace(evs[0].Output) != "read" {
			t.Fatalf("summary.json events: %+v", evs)
		}
		// storbench's own action needs no --allow-events.
		if e := evs[1]; e.Host != names[0] || e.Error != "" || e.StartS == nil {
			t.Errorf("drop caches on %s: %+v", names[0], e)
		}
		if !strings.Contains(out.String(), "event probe at 1.") || !strings.Contains(out.String(), "on "+names[1]+": exit 0") {
			t.Errorf("the run does not say the event ran on %s:\n%s", names[1], out)
		}
	})
}

// The only agent of a phase with events lost mid-phase (an event's own
// command kills it: the agent is its parent's parent, as an event's
// command runs under storbench's supervisor): the results so far are kept - the phase's folder,
// its events.json and summary.json, which names the lost host - and the
// run fails in one line that names it too. Before, the phase folder was
// never made and the run said "results not saved ... events.json: no
// such file or directory".
func TestLostOnlyAgentKeepsEvents(t *testing.T) {
	t.Parallel()
	needFio(t)
	const token = "sb-events-lost-token-0123456789ab"
	bin := testutil.StorbenchBin(t)
	addr := testutil.AgentProcess(t, bin, token, "--allow-events")
	name := cluster.HostNames([]string{addr})[0]
	tok := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tok, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	data, res := t.TempDir(), t.TempDir()
	suite := filepath.Join(t.TempDir(), "suite.yaml")
	s := fmt.Sprintf(`name: lost-with-events
dir: %s
agents: [%s]
phases:
  - name: read
    fio: {runtime: 30s, job: {rw: read, bs: 4k, size: 1m, time_based: 1}}
    events:
      - {name: mark, at: 500ms, command: "true"}
      - {name: kill, at: 1s, host: %s, command: "kill -9 $(cut -d' ' -f4 /proc/$PPID/stat)"}
`, data, addr, name)
	if err := os.WriteFile(suite, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	st, out := testState()
	err := Execute(context.Background(), st, []string{"run", suite, "--token-file", tok, "--results", res})
	if code := ExitCode(err); code != 1 || !strings.Contains(err.Error(), name) {
		t.Fatalf("exit %d (%v), want 1 naming the lost host %s:\n%s", code, err, name, out)
	}
	if strings.Contains(out.String()+err.Error(), "not saved") {
		t.Errorf("results were not saved:\n%v\n%s", err, out)
	}
	folders, _ := filepath.Glob(filepath.Join(res, "*"))
	if len(folders) != 1 {
		t.Fatalf("results: %v", folders)
	}
	sum, rerr := results.ReadSummary(folders[0])
	if rerr != nil {
		t.Fatal(rerr)
	}
	if len(sum.Phases) != 1 || len(sum.Phases[0].LostHosts) != 1 || sum.Phases[0].LostHosts[0] != name {
		t.Fatalf("summary.json does not name the lost host: %+v", sum.Phases)
	}
	if len(sum.Phases[0].Events) != 2 {
		t.Errorf("summary.json events: %+v", sum.Phases[0].Events)
	}
	if _, err := os.Stat(filepath.Join(folders[0], sum.Phases[0].Dir, "events.json")); err != nil {
		t.Errorf("events.json: %v", err)
	}
}
