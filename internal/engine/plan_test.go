package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// secretive is a fake engine (no storage) with two secret settings.
type secretive struct{ Base }

func (secretive) Info() Info { return Info{Secrets: []string{"key", "token"}} }

func (secretive) Prepare(context.Context, Env, Phase) (Prepared, error) { return nil, nil }

// Redacted blanks every secret an engine declares, keeps its other
// settings, keeps nothing of params that are not an object, and leaves
// an engine without secrets as it was.
func TestRedactedBlanksDeclaredSecrets(t *testing.T) {
	reg := Registry{"s": secretive{}, "plain": checker{}}
	p := reg.Redacted(Phase{Name: "a", Engine: "s", Params: json.RawMessage(`{"key":"K3Y","token":"T0K","dir":"/d"}`)})
	if s := string(p.Params); strings.Contains(s, "K3Y") || strings.Contains(s, "T0K") || !strings.Contains(s, `"dir":"/d"`) {
		t.Errorf("redacted: %s", s)
	}
	if p := reg.Redacted(Phase{Engine: "s", Params: json.RawMessage(`["K3Y"]`)}); string(p.Params) != `{}` {
		t.Errorf("params not an object kept: %s", p.Params)
	}
	raw := json.RawMessage(`{"key":"mine"}`)
	if p := reg.Redacted(Phase{Engine: "plain", Params: raw}); string(p.Params) != string(raw) {
		t.Errorf("an engine without secrets redacted: %s", p.Params)
	}
}
