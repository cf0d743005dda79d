package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/record"
	"github.com/storbench/storbench/internal/testutil"
)

// tallyTool is the outside program the tally engine runs: no file outside
// this one names it, and it is on no machine's PATH.
const tallyTool = "storbench-test-tally"

// tallyEngine is an engine that lives in this test file only and runs an
// outside tool (Info.Tool), as fio's engine runs fio: each phase runs the
// tool once, where the agent says it is (Env.Tools), and records that
// run. It has no PlanChecker: whether its tool is there is the spine's
// question.
type tallyEngine struct{ engine.Base }

func (tallyEngine) Info() engine.Info {
	return engine.Info{RateUnit: "tally/s", Tool: &engine.Tool{Name: tallyTool, VersionArgs: []string{"--version"}, VersionPrefix: "tally-"}}
}

func (tallyEngine) Prepare(_ context.Context, env engine.Env, _ engine.Phase) (engine.Prepared, error) {
	return &tallyPhase{host: env.Host, bin: env.Tools.Path(tallyTool)}, nil
}

type tallyPhase struct{ host, bin string }

func (p *tallyPhase) Run(ctx context.Context, startAt time.Time, _ engine.LiveFunc) (*engine.HostResult, error) {
	if err := engine.WaitUntil(ctx, startAt); err != nil {
		return nil, engine.Interrupted(err)
	}
	rec := record.NewRecorder([]string{"tally"}, false)
	start := time.Now()
	if err := exec.CommandContext(ctx, p.bin).Run(); err != nil {
		return nil, fmt.Errorf("tally: %v", err)
	}
	rec.Op(0).Record(time.Since(start).Nanoseconds(), 0)
	st := rec.Stats(0, "tally")
	st.StartNs, st.EndNs = start.UnixNano(), time.Now().UnixNano()
	return &engine.HostResult{Host: p.host, Ops: []record.OpStats{st}}, nil
}

func (*tallyPhase) Cleanup(context.Context) error { return nil }

// An engine's outside tool that is missing is bad input found before any
// load, for every engine that declares one (Info.Tool), not only those
// that check it themselves: on this machine, the run refuses it in one
// line naming --tool NAME=PATH; through agents, the controller refuses a
// host whose agent lacks it (its hello says which tools it has), naming
// the agent. Exit 2, and no results folder either way. The tool given
// where it is missing, the same runs pass.
func TestMissingToolOfAnyEngineRefused(t *testing.T) {
	t.Setenv(envProbeAgent, "1") // for the agents started below
	toolDir := t.TempDir()
	good := filepath.Join(toolDir, "tally")
	if err := os.WriteFile(good, []byte("#!/bin/sh\necho tally-1.0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	suiteFile := filepath.Join(t.TempDir(), "suite.yaml")
	if err := os.WriteFile(suiteFile, []byte("name: tally\nphases:\n  - name: count\n    tally: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, args ...string) (string, error) {
		t.Helper()
		st, buf := testState()
		st.Engines = probeEngines()
		res := t.TempDir()
		err := Execute(t.Context(), st, append([]string{"run", suiteFile, "--results", res}, args...))
		if ents, _ := os.ReadDir(res); err != nil && len(ents) != 0 {
			t.Errorf("refused, yet a results folder was made: %v", ents)
		}
		return buf.String(), err
	}
	refused := func(t *testing.T, err error, out string, want ...string) {
		t.Helper()
		if ExitCode(err) != ExitUsage || err == nil || strings.Contains(err.Error(), "\n") {
			t.Fatalf("exit %d, %v: want exit 2 and one line\n%s", ExitCode(err), err, out)
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: does not say %q", err, w)
			}
		}
	}
	t.Run("here, not on the PATH", func(t *testing.T) {
		out, err := run(t)
		refused(t, err, out, "phase count", tallyTool, "--tool "+tallyTool+"=PATH")
	})
	t.Run("here, a path that is not the tool", func(t *testing.T) {
		out, err := run(t, "--tool", tallyTool+"=/bin/true")
		refused(t, err, out, "--tool "+tallyTool+"=/bin/true", "not "+tallyTool)
	})
	t.Run("here, given", func(t *testing.T) {
		if out, err := run(t, "--tool", tallyTool+"="+good); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	})
	tok := filepath.Join(t.TempDir(), "token")
	const token = "tally-token-0123456789"
	if err := os.WriteFile(tok, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Run("an agent without it", func(t *testing.T) {
		with := testutil.AgentProcess(t, self, token, "--tool", tallyTool+"="+good)
		without := testutil.AgentProcess(t, self, token)
		out, err := run(t, "--agents", with+","+without, "--token-file", tok)
		// The run names an agent by its address, its port after a '-'.
		name := func(addr string) string { return strings.Replace(addr, ":", "-", 1) }
		refused(t, err, out, "phase count", "agent "+name(without)+" has no "+tallyTool, "--tool "+tallyTool+"=PATH")
		if strings.Contains(err.Error(), name(with)) {
			t.Errorf("%v: names the agent that has the tool", err)
		}
	})
	t.Run("agents with it", func(t *testing.T) {
		addr := testutil.AgentProcess(t, self, token, "--tool", tallyTool+"="+good)
		if out, err := run(t, "--agents", addr, "--token-file", tok); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	})
}
