package testutil

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// AgentProcess starts `bin agent` on a free loopback port with token (in a
// file of mode 0600) and the extra flags, for the life of the test: it
// returns once the agent listens, and the test's cleanup stops it (SIGTERM,
// then SIGKILL after 10 s), logging what it printed when the test failed.
func AgentProcess(t testing.TB, bin, token string, extra ...string) string {
	t.Helper()
	addr, _ := StartAgent(t, bin, token, nil, extra...)
	return addr
}

// StartAgent is AgentProcess with env added to the agent's environment;
// it returns the agent's process too.
func StartAgent(t testing.TB, bin, token string, env []string, extra ...string) (string, *exec.Cmd) {
	t.Helper()
	addr := FreeAddr(t)
	tok := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tok, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"agent", "--listen", addr, "--token-file", tok}, extra...)...)
	cmd.Env = append(os.Environ(), env...)
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var log []string
	listening := make(chan struct{})
	go func() {
		var once sync.Once
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			mu.Lock()
			log = append(log, sc.Text())
			mu.Unlock()
			if strings.Contains(sc.Text(), "listening on") {
				once.Do(func() { close(listening) })
			}
		}
	}()
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); pw.Close(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			mu.Lock()
			t.Logf("agent log:\n%s", strings.Join(log, "\n"))
			mu.Unlock()
		}
	})
	select {
	case <-listening:
	case <-done:
		t.Fatal("the agent ended before listening")
	case <-time.After(15 * time.Second):
		t.Fatal("the agent did not start within 15s")
	}
	return addr, cmd
}
