package cluster

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/secret"
)

// What a launcher writes on an agent's stdin, the agent reads back: the
// token and the secrets by the names their engines gave them (s3's keys,
// a session token too, and another engine's own variable, which the
// launcher carries without knowing it), and the stream after them stays
// for the agent to watch. The s3 keys keep the lines older agents read
// (STORBENCH_ACCESS_KEY=...).
func TestStdinRoundTrip(t *testing.T) {
	for _, c := range []struct {
		name    string
		secrets engine.Secrets
		line    string
	}{{"with keys", engine.Secrets{"STORBENCH_ACCESS_KEY": secret.New("AKsbStdin1"), "STORBENCH_SECRET_KEY": secret.New("SKsbStdin1")}, "STORBENCH_SECRET_KEY=SKsbStdin1\n"},
		{"token only", engine.Secrets{}, ""},
		{"with a session token", engine.Secrets{"STORBENCH_ACCESS_KEY": secret.New("ASIAsbStdin2"), "STORBENCH_SECRET_KEY": secret.New("SKsbStdin2"),
			"STORBENCH_SESSION_TOKEN": secret.New("TOKsbSession2")}, "STORBENCH_SESSION_TOKEN=TOKsbSession2\n"},
		{"another engine's secret", engine.Secrets{"NULLENGINE_PASSWORD": secret.New("PWsbStdin3=x")}, "NULLENGINE_PASSWORD=PWsbStdin3=x\n"}} {
		t.Run(c.name, func(t *testing.T) {
			msg := stdinMessage("tok123", c.secrets)
			if !strings.HasPrefix(msg, "tok123\n") || !strings.Contains(msg, c.line) {
				t.Errorf("message %q does not hold the token's line and %q", msg, c.line)
			}
			r := bufio.NewReader(strings.NewReader(msg + "rest"))
			token, got, err := ReadStdin(r)
			if err != nil || token != "tok123" || fmt.Sprint(reveal(got)) != fmt.Sprint(reveal(c.secrets)) {
				t.Errorf("read %q %v, %v; want %v", token, reveal(got), err, reveal(c.secrets))
			}
			if rest, _ := io.ReadAll(r); string(rest) != "rest" {
				t.Errorf("the stream after the keys: %q", rest)
			}
		})
	}
	if _, _, err := ReadStdin(bufio.NewReader(strings.NewReader(""))); err == nil {
		t.Error("an empty stdin gave a token")
	}
}

// reveal is s in the clear, for comparing.
func reveal(s engine.Secrets) map[string]string {
	out := map[string]string{}
	for _, n := range s.Names() {
		out[n] = s.Get(n).Reveal()
	}
	return out
}
