package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// checker is a fake engine (no storage) whose plan check returns err.
type checker struct {
	Base
	err error
}

func (checker) Prepare(context.Context, Env, Phase) (Prepared, error) { return nil, nil }

func (c checker) CheckPlan(context.Context, CheckEnv, []Phase) error { return c.err }

// A tool missing on this machine is only what a dry run notes: another
// engine's refusal of the plan still comes first, whatever the names'
// order, and engines without phases in the plan are not asked.
func TestCheckPlanMissingToolDoesNotHideARefusal(t *testing.T) {
	missing := &MissingTool{Tool: "a-tool", What: "job files", Err: errors.New("a-tool is not installed")}
	refused := errors.New("b refuses the plan")
	reg := Registry{"a": checker{err: missing}, "b": checker{err: refused}, "c": checker{err: errors.New("c has no phase here")}}
	plan := []Phase{{Name: "1", Engine: "a"}, {Name: "2", Engine: "b"}}
	if err := reg.CheckPlan(context.Background(), CheckEnv{}, plan); !errors.Is(err, refused) {
		t.Errorf("refusal hidden: %v", err)
	}
	var mt *MissingTool
	if err := reg.CheckPlan(context.Background(), CheckEnv{}, plan[:1]); !errors.As(err, &mt) || mt.Tool != "a-tool" {
		t.Errorf("missing tool: %v", err)
	}
}

// Register adds a test's engine, never over one already listed.
func TestRegisterRefusesATakenName(t *testing.T) {
	reg := Registry{"a": checker{}}
	if err := reg.Register("a", checker{}); err == nil || !strings.Contains(err.Error(), "registered already") {
		t.Errorf("taken name: %v", err)
	}
	if err := reg.Register("x/y", checker{}); err == nil {
		t.Error("a name that cannot name a directory was registered")
	}
	if err := reg.Register("probe", checker{}); err != nil || len(reg.Names()) != 2 {
		t.Errorf("register: %v, %v", err, reg.Names())
	}
}
