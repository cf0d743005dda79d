package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/secret"
)

// envEngine declares the variables it is given.
type envEngine struct {
	Base
	vars []Var
}

func (e envEngine) Info() Info { return Info{Environment: e.vars} }

func (envEngine) Prepare(context.Context, Env, Phase) (Prepared, error) { return nil, nil }

// The variables every engine declares are listed once each, a variable
// two engines read being secret when either says so; the secret names
// are what a launcher keeps out of an environment, and a set of secrets
// prints none of its values.
func TestDeclaredEnvironment(t *testing.T) {
	r := Registry{
		"a": envEngine{vars: []Var{{Name: "A_HOST"}, {Name: "SHARED_TOKEN"}}},
		"b": envEngine{vars: []Var{{Name: "SHARED_TOKEN", Secret: true}, {Name: "B_PASSWORD", Secret: true}}},
		"c": envEngine{},
	}
	if got := fmt.Sprint(r.Environment()); got != "[{A_HOST false} {B_PASSWORD true} {SHARED_TOKEN true}]" {
		t.Errorf("Environment() = %s", got)
	}
	if got := strings.Join(r.SecretNames(), ","); got != "B_PASSWORD,SHARED_TOKEN" {
		t.Errorf("SecretNames() = %s", got)
	}
	s := Secrets{"B_PASSWORD": secret.New("PWsbEnv1"), "EMPTY": secret.String{}}
	if got := strings.Join(s.Names(), ","); got != "B_PASSWORD" || s.Empty() || !(Secrets{}).Empty() {
		t.Errorf("Names() = %s, Empty() = %v", got, s.Empty())
	}
	if out := fmt.Sprintf("%v %+v %#v", s, s, Env{Secrets: s}); strings.Contains(out, "PWsbEnv1") {
		t.Errorf("a printed set of secrets shows one: %s", out)
	}
}
