package enginetest

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/engine"
)

// tool: what an engine says of its outside tool (Info.Tool) and where the
// suite's Env says its tools are (Env.Tools) agree (CheckTool).
func (s Suite) tool(t *testing.T) {
	id := runID(t)
	if err := CheckTool(t.Context(), s.Engine, s.Env, s.Phase(t, "conformance", false), t.TempDir(), id); err != nil {
		t.Error(err)
	}
	if s.Engine.Info().Tool != nil { // a phase was prepared without its tool
		s.nothingLeft(t, id)
	}
}

// CheckTool checks that e's Info.Tool and env.Tools agree: env names no
// tool but e's; a declared tool has a name and a version's prefix, and is
// found where env says (a name alone: on the PATH), as the run looks for
// it before any load; and the engine runs the tool env names, not one of
// its own finding: with env naming it at a path under scratch where
// there is none, phase p fails in Prepare or Run, and never runs. The
// run's id for that attempt is runID.
func CheckTool(ctx context.Context, e engine.Engine, env engine.Env, p engine.Phase, scratch, runID string) error {
	info := e.Info()
	reg := engine.Registry{p.Engine: e}
	if err := reg.CheckTools(env.Tools); err != nil {
		return fmt.Errorf("Env.Tools names a tool the engine does not declare (Info.Tool): %v", err)
	}
	if info.Tool == nil {
		return nil
	}
	name := info.Tool.Name
	if name == "" || strings.ContainsAny(name, "=/ ") || info.Tool.VersionPrefix == "" {
		return fmt.Errorf("Info.Tool %+v: want a name (no '=', '/' or blank: --tool NAME=PATH) and the prefix of its version", *info.Tool)
	}
	if _, err := info.Tool.Find(env.Tools.Path(name)); err != nil {
		return fmt.Errorf("Info.Tool is not where Env.Tools says: %v", err)
	}
	env.RunID = runID
	env.Tools = engine.Tools{name: filepath.Join(scratch, "no-"+name)}
	pr, err := e.Prepare(ctx, env, p)
	if err != nil {
		return nil
	}
	defer func() { _ = pr.Cleanup(context.WithoutCancel(ctx)) }()
	rctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if _, err := pr.Run(rctx, time.Now(), nil); err != nil {
		return nil
	}
	return fmt.Errorf("a phase ran with Env.Tools giving %s's path as %s, where there is none: the engine runs a %s of its own finding, not the one the user gave (--tool %s=PATH)", name, env.Tools[name], name, name)
}
