package cluster

import (
	"bufio"
	"io"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/engine"
	"github.com/storbench/storbench/internal/secret"
)

// What a launcher writes on an agent's stdin, the agent reads back: the
// token and the keys (a session token too), and the stream after them stays for the agent to
// watch.
func TestStdinRoundTrip(t *testing.T) {
	keys := engine.Credentials{AccessKey: secret.New("AKsbStdin1"), SecretKey: secret.New("SKsbStdin1")}
	for _, c := range []struct {
		name string
		keys engine.Credentials
	}{{"with keys", keys}, {"token only", engine.Credentials{}},
		{"with a session token", engine.Credentials{AccessKey: secret.New("ASIAsbStdin2"), SecretKey: secret.New("SKsbStdin2"), SessionToken: secret.New("TOKsbSession2")}}} {
		t.Run(c.name, func(t *testing.T) {
			r := bufio.NewReader(strings.NewReader(stdinMessage("tok123", c.keys) + "rest"))
			token, got, err := ReadStdin(r)
			if err != nil || token != "tok123" || got.AccessKey.Reveal() != c.keys.AccessKey.Reveal() || got.SecretKey.Reveal() != c.keys.SecretKey.Reveal() ||
				got.SessionToken.Reveal() != c.keys.SessionToken.Reveal() {
				t.Errorf("read %q %v %v %v, %v", token, got.AccessKey.Reveal(), got.SecretKey.Reveal(), got.SessionToken.Reveal(), err)
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
