package cli

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/catalog"
)

// serve refuses, in one line and exit 2 before it listens: an address
// other than loopback without a token, a token file open to others or
// empty or missing, a catalog that does not exist (never created: serve
// only reads).
func TestServeBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.db")
	c, err := catalog.Open(context.Background(), good)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	open := filepath.Join(dir, "open-token")
	os.WriteFile(open, []byte("tok\n"), 0o644)
	os.Chmod(open, 0o644)
	empty := filepath.Join(dir, "empty-token")
	os.WriteFile(empty, nil, 0o600)
	missing := filepath.Join(dir, "none.db")
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"serve", "--catalog", good, "--listen", "0.0.0.0:0"}, []string{"--listen 0.0.0.0:0", "loopback only", "--token-file"}},
		{[]string{"serve", "--catalog", good, "--listen", "0.0.0.0:0", "--token-file", open}, []string{"--token-file", "open to group or others", "chmod 600"}},
		{[]string{"serve", "--catalog", good, "--token-file", empty}, []string{"--token-file", "is empty"}},
		{[]string{"serve", "--catalog", good, "--token-file", filepath.Join(dir, "nofile")}, []string{"--token-file", "no such file"}},
		{[]string{"serve", "--catalog", good, "--listen", "nohostport"}, []string{"--listen", "host:port"}},
		{[]string{"serve", "--catalog", missing}, []string{missing, "storbench catalog add"}},
	} {
		t.Run(strings.Join(tc.args[1:], " "), func(t *testing.T) {
			st, out := testState()
			refusedInOneLine(t, st, out, tc.args, tc.want)
		})
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("serve created the catalog it was given")
	}
}

// serve listens on loopback by default, answers the run list from the
// catalog and stops when its context ends; with --token-file it answers
// only requests that carry the token, which its output never shows.
func TestServeAnswers(t *testing.T) {
	t.Parallel()
	res := t.TempDir()
	cat := filepath.Join(t.TempDir(), "catalog.db")
	if err, out := mdRun(t, "--results", res, "--catalog", cat, "--label", "tuning=default"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	addr, out, stop := startServe(t, "--catalog", cat, "--listen", ":0")
	resp, err := http.Get("http://" + addr + "/?q=label%3Dtuning%3Ddefault")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || strings.Count(string(body), `<tr class="run"`) != 1 {
		t.Errorf("GET /: %d, want the one run:\n%s", resp.StatusCode, body)
	}
	stop()

	const tok = "serve-cli-token-0123456789"
	tf := filepath.Join(t.TempDir(), "token")
	os.WriteFile(tf, []byte(tok+"\n"), 0o600)
	addr, out, stop = startServe(t, "--catalog", cat, "--listen", "127.0.0.1:0", "--token-file", tf)
	for _, tc := range []struct {
		auth string
		code int
	}{{"", 401}, {"Bearer nope", 401}, {"Bearer " + tok, 200}} {
		req, _ := http.NewRequest("GET", "http://"+addr+"/trend?figure=md%2Fcreate%2Frate&token=x", nil)
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.code {
			t.Errorf("with %q: %d, want %d", tc.auth, resp.StatusCode, tc.code)
		}
	}
	stop()
	if strings.Contains(out.String(), tok) {
		t.Errorf("serve's output shows the token:\n%s", out)
	}
}

// startServe runs storbench serve in-process and returns where it
// listens, its output, and what stops it (and checks it stopped cleanly).
func startServe(t *testing.T, args ...string) (string, fmt.Stringer, func()) {
	t.Helper()
	st, out := testState()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Execute(ctx, st, append([]string{"serve"}, args...)) }()
	var addr string
	re := regexp.MustCompile(`at http://(127\.0\.0\.1:\d+)/`)
	for deadline := time.Now().Add(20 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			addr = m[1]
		}
	}
	if addr == "" {
		cancel()
		t.Fatalf("serve did not say where it listens:\n%s", out)
	}
	return addr, out, func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve ended with %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("serve did not stop when its context ended")
		}
	}
}
