package cluster_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storbench/storbench/internal/s3test"
)

// stopMargin is what a loaded machine may add to a bound on how soon a
// process stops: the results written, the process gone.
const stopMargin = 3 * time.Second

// SIGTERM to a controller waiting on an agent that went quiet (stopped,
// SIGSTOP, mid-phase): the controller gives the agent HurrySilence to say
// anything, then takes it as lost - no cleanup stream, no question of
// what it left, each of which waited out a full silence - and ends,
// interrupted, naming what the host may have left. Before, it ended 14 s
// after the signal.
func TestInterruptLosesQuietAgentAtOnce(t *testing.T) {
	c := startCluster(t, loopback(t, 1), nil, nil)
	cmd, out := c.controller(t, "md", "-d", t.TempDir(), "-n", "200000", "-t", "1", "-i", "3")
	if _, ok := c.agents[0].waitLog("phase md", 30*time.Second); !ok {
		t.Fatalf("the phase did not start:\n%s", out)
	}
	time.Sleep(time.Second)
	agent := c.agents[0].cmd.Process
	_ = agent.Signal(syscall.SIGSTOP)
	defer func() { _ = agent.Signal(syscall.SIGCONT) }()
	t0 := time.Now()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("the controller did not end within 60s of SIGTERM:\n%s", out)
	}
	el := time.Since(t0)
	if exitCode(err) != 130 {
		t.Errorf("exit %d, want 130:\n%s", exitCode(err), out)
	}
	if el > 2*time.Second+stopMargin {
		t.Errorf("the controller ended %v after SIGTERM, want about %v:\n%s", el.Round(time.Millisecond), 2*time.Second, out)
	}
	if text := out.String(); !strings.Contains(text, "lost hosts:") || !strings.Contains(text, "host lost before cleanup") {
		t.Errorf("the quiet host and what it may have left are not named:\n%s", text)
	}
}

// SIGTERM to a controller while an agent prepares a phase (uploading many
// objects to a real versitygw): the agent is told to stop preparing, undoes
// what it uploaded, and the run ends interrupted within seconds. Before,
// the controller waited for the whole preparation (about a minute here),
// then cleaned up.
func TestInterruptStopsRemotePrepare(t *testing.T) {
	srv := s3test.StartT(t, s3test.Options{})
	env := []string{engineEnv("STORBENCH_ACCESS_KEY", s3test.AccessKey), engineEnv("STORBENCH_SECRET_KEY", s3test.SecretKey)}
	c := startCluster(t, loopback(t, 1), nil, env)
	cmd, out := c.controller(t, "s3", "get", "--host", srv.Endpoint, "--bucket", "prep", "--objects", "100000",
		"--obj.size", "1KiB", "--concurrent", "2", "--duration", "5s")
	if _, ok := c.agents[0].waitLog("phase s3-get", 30*time.Second); !ok {
		t.Fatalf("the phase did not start:\n%s", out)
	}
	time.Sleep(2 * time.Second)
	t0 := time.Now()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(3 * time.Minute):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("the controller did not end within 3 minutes of SIGTERM:\n%s", out)
	}
	el := time.Since(t0)
	t.Logf("ended %v after SIGTERM", el.Round(time.Millisecond))
	if exitCode(err) != 130 {
		t.Errorf("exit %d, want 130:\n%s", exitCode(err), out)
	}
	// Stopping the uploads takes as long as one in flight; undoing them,
	// two seconds' worth of uploads removed.
	if el > 15*time.Second {
		t.Errorf("the controller ended %v after SIGTERM:\n%s\nagent:\n%s", el.Round(time.Millisecond), out, c.agents[0])
	}
	if ents, _ := os.ReadDir(filepath.Join(srv.Root, "prep")); len(ents) != 0 {
		t.Errorf("the bucket holds %d entries after the run", len(ents))
	}
}
