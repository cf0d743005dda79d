package cli

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storbench/storbench/internal/cluster"
)

// A token shorter than 16 random bytes' worth (22 base64 characters) is
// refused wherever one is taken, in one line naming how to make a good
// one and never showing the token (issue 33: a one-byte token was taken
// by agent and by serve --listen 0.0.0.0); 22 characters are taken.
func TestShortTokensRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, tok string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(tok+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const short = "x9Tq-21-characters-ab" // 21
	one, weak := write("one", "k"), write("weak", short)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"agent, one byte", []string{"agent", "--listen", "127.0.0.1:0", "--token-file", one}},
		{"agent, 21 characters", []string{"agent", "--listen", "127.0.0.1:0", "--token-file", weak}},
		{"serve on every address", []string{"serve", "--listen", "0.0.0.0:0", "--token-file", one, "--catalog", filepath.Join(dir, "none.db")}},
		{"serve on loopback", []string{"serve", "--listen", "127.0.0.1:0", "--token-file", weak, "--catalog", filepath.Join(dir, "none.db")}},
		{"controller", []string{"md", "-d", dir, "-n", "5", "--results", filepath.Join(dir, "results"), "--token-file", weak, "127.0.0.1:1"}},
		{"controller's metrics", []string{"md", "-d", dir, "-n", "5", "--results", filepath.Join(dir, "results"), "--token-file", one, "--metrics-listen", "0.0.0.0:0", "127.0.0.1:1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, out := testState()
			msg := refusedInOneLine(t, st, out, c.args, []string{"--token-file " + dir, "too short", "at least 22", cluster.MakeTokenCommand, "storbench token"})
			if strings.Contains(msg, short) || strings.Contains(out.String(), short) {
				t.Errorf("the token is shown: %s\n%s", msg, out)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "results")); err == nil {
		t.Error("a results folder was made")
	}
	if err := cluster.CheckToken("--token-file F", strings.Repeat("k", 22)); err != nil {
		t.Errorf("22 characters refused: %v", err)
	}
}

// storbench token prints a new token each time: 32 random bytes in
// base64, which every command takes.
func TestTokenCommand(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 3 {
		st, out := testState()
		if err := Execute(t.Context(), st, []string{"token"}); err != nil {
			t.Fatal(err)
		}
		tok := strings.TrimSuffix(out.String(), "\n")
		b, err := base64.StdEncoding.DecodeString(tok)
		if err != nil || len(b) != 32 || strings.Contains(tok, "\n") || seen[tok] {
			t.Fatalf("storbench token printed %q: want one line, 32 bytes in base64, new each time (%v)", out, err)
		}
		seen[tok] = true
		if err := cluster.CheckToken("storbench token", tok); err != nil {
			t.Error(err)
		}
	}
}
