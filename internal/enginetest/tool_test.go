package enginetest

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/record"
)

// shTool is sh, as an engine's outside tool: on every machine's PATH.
var shTool = engine.Tool{Name: "sh", VersionArgs: []string{"-c", "echo sh-1"}, VersionPrefix: "sh-"}

// shEngine runs sh once per phase: from where Env.Tools says (honest), or
// found on the PATH whatever Env.Tools says (not honest), or declaring
// no tool at all (tool nil).
type shEngine struct {
	engine.Base
	tool   *engine.Tool
	honest bool
}

func (e shEngine) Info() engine.Info { return engine.Info{RateUnit: "sh/s", Tool: e.tool} }

func (e shEngine) Prepare(_ context.Context, env engine.Env, _ engine.Phase) (engine.Prepared, error) {
	bin := "sh"
	if e.honest {
		bin = env.Tools.Path("sh")
	}
	return shPhase{bin: bin, host: env.Host}, nil
}

type shPhase struct{ bin, host string }

func (p shPhase) Run(ctx context.Context, _ time.Time, _ engine.LiveFunc) (*engine.HostResult, error) {
	if err := exec.CommandContext(ctx, p.bin, "-c", "true").Run(); err != nil {
		return nil, fmt.Errorf("sh: %v", err)
	}
	rec := record.NewRecorder([]string{"sh"}, false)
	rec.Op(0).Record(1, 0)
	return &engine.HostResult{Host: p.host, Ops: []record.OpStats{rec.Stats(0, "sh")}}, nil
}

func (shPhase) Cleanup(context.Context) error { return nil }

// The suite's tool check holds an engine to the tool it declares: one
// that runs the copy on the PATH when Env.Tools names another fails it,
// as do Env.Tools naming a tool the engine does not run and a declared
// tool that is not there; an engine that runs what Env.Tools names
// passes.
func TestCheckTool(t *testing.T) {
	p := engine.Phase{Name: "p", Engine: "sh", Params: []byte("{}")}
	env := engine.Env{Host: "h"}
	missing := shTool
	missing.Name = "storbench-no-such-tool"
	for _, tc := range []struct {
		name string
		e    shEngine
		env  engine.Env
		want string // "" passes
	}{
		{"runs the tool Env.Tools names", shEngine{tool: &shTool, honest: true}, env, ""},
		{"runs its own finding", shEngine{tool: &shTool}, env, "not the one the user gave (--tool sh=PATH)"},
		{"no tool, none given", shEngine{}, env, ""},
		{"no tool, one given", shEngine{}, engine.Env{Host: "h", Tools: engine.Tools{"sh": "/bin/sh"}}, "does not declare"},
		{"a tool that is not there", shEngine{tool: &missing, honest: true}, env, "storbench-no-such-tool is not installed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckTool(t.Context(), tc.e, tc.env, p, t.TempDir(), "tool-test")
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("%v, want an error saying %q", err, tc.want)
			}
		})
	}
}
