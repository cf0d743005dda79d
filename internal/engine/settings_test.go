package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"
)

// counting is a fake engine (no storage) whose settings are a duration,
// counting how often they are decoded.
type counting struct{ decodes *int }

type countingParams struct {
	Seconds int `json:"seconds"`
}

func (counting) Prepare(context.Context, Env, Phase) (Prepared, error) { return nil, nil }

func (c counting) decode(p Phase) (countingParams, error) {
	*c.decodes++
	var ps countingParams
	return ps, DecodeStrict(p.Params, &ps)
}

func (c counting) Decode(p Phase) (any, error) { return c.decode(p) }

func (counting) Info() Info { return Info{} }

// countingPlan is a counting phase's plan: its length.
type countingPlan struct {
	BasePlan
	ps countingParams
}

func (c counting) Plan(p Phase) (Plan, error) {
	ps, err := Typed(p, c.decode)
	return countingPlan{ps: ps}, err
}

func (c countingPlan) Planned() (time.Duration, bool) {
	return time.Duration(c.ps.Seconds) * time.Second, false
}

// A phase's settings are decoded once and kept with it: the hooks the
// spine calls take them from there. Settings given new bytes are decoded
// anew (a hook never answers from settings the phase no longer has), and
// what was decoded never travels: the phase's JSON is as it was.
func TestSettingsAreDecodedOnce(t *testing.T) {
	n := 0
	reg := Registry{"fake": counting{&n}}
	plan := []Phase{{Name: "a", Engine: "fake", Params: json.RawMessage(`{"seconds": 3}`)}}
	wire, _ := json.Marshal(plan)
	plan = reg.Decode(plan)
	for i := 0; i < 3; i++ {
		if err := reg.Validate(plan[0]); err != nil {
			t.Fatal(err)
		}
		if d, _ := reg.Planned(plan[0]); d != 3*time.Second {
			t.Fatalf("planned %s, want 3s", d)
		}
	}
	if n != 1 {
		t.Errorf("settings decoded %d times for one phase, want once", n)
	}
	if got, _ := json.Marshal(plan); !bytes.Equal(got, wire) {
		t.Errorf("the phase's JSON changed with its decoded settings:\n%s\nwant\n%s", got, wire)
	}
	changed := plan[0]
	changed.Params = json.RawMessage(`{"seconds": 5}`)
	if d, _ := reg.Planned(changed); d != 5*time.Second || n != 2 {
		t.Errorf("new settings: planned %s after %d decodes, want 5s after 2", d, n)
	}
	if again := reg.Decoded(plan[0]); n != 2 || again.Settings != plan[0].Settings {
		t.Errorf("a phase decoded already was decoded again (%d decodes)", n)
	}
	bad := reg.Decode([]Phase{{Name: "b", Engine: "fake", Params: json.RawMessage(`{"secnds": 1}`)}})
	if err := reg.Validate(bad[0]); err == nil {
		t.Error("settings that do not decode were validated")
	}
}
